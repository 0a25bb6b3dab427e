"""The desk every face drives: the Desk, work beside running work, notes kept through a full
disk, crash records, background model loading, and the watch on the library."""
