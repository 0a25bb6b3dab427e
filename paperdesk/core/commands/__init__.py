"""The command model: parsing a command line, the registry of commands, the workflow machine and its
guards (which command is allowed when), the session, and the views the desk hands the faces."""
