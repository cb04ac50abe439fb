"""relkit: small helpers for our release tooling."""
from .version import latest, parse_tag, sort_tags

__all__ = ["latest", "parse_tag", "sort_tags"]
