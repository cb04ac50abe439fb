"""Rate-constant analysis for the stability lab."""
