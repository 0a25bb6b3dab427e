"""The library: papers with their PDFs and indexes, repair and rebuild, health checks, re-embedding, and
papers in and out (BibTeX, exports)."""
