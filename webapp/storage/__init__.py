"""What is kept on disk: the event store (log and snapshots in SQLite), game files and backups, map pictures."""
