"""tacmap's benchmarks: ``python -m bench`` runs them all and prints one table (see README.md here)."""
