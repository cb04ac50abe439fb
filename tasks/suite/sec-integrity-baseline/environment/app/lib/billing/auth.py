"""Password checks for the billing console."""
import hashlib
import hmac


def check_password(stored: str, password: str) -> bool:
    salt, digest = stored.split("$", 1)
    got = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), 200_000).hex()
    return hmac.compare_digest(got, digest)
