from paperdesk.entry import main

raise SystemExit(main())
