"""Text of papers and drafts: cleaning, redaction, how a message names a citation, passages on a page, metric names."""
