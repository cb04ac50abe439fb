"""Release tags: parsing and ordering.

Tags look like ``v1.4.2`` or ``v1.5.0-rc.1`` (semantic versioning; a
pre-release sorts before the release it leads up to).
"""
import re

TAG = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.]+))?$")


def parse_tag(tag):
    """Split a tag into (major, minor, patch, prerelease or None); None if it is no release tag."""
    m = TAG.match(tag.strip())
    if not m:
        return None
    major, minor, patch, pre = m.groups()
    return major, minor, patch, pre


def _key(tag):
    major, minor, patch, pre = parse_tag(tag)
    return (major, minor, patch, pre or "")


def sort_tags(tags):
    """The release tags among tags, oldest first (other tags are dropped)."""
    return sorted((t.strip() for t in tags if parse_tag(t)), key=_key)


def latest(tags, include_prereleases=False):
    """The newest release tag, or None. Pre-releases only count if include_prereleases."""
    found = [t for t in sort_tags(tags) if include_prereleases or parse_tag(t)[3] is None]
    return found[-1] if found else None
