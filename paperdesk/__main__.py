from paperdesk.cli import main

raise SystemExit(main())
