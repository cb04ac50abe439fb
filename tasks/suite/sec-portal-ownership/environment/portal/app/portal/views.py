"""Request handlers: upload and download of customer documents."""
import os

UPLOADS = "/srv/portal/uploads"


def document_path(customer_id, name):
    safe = os.path.basename(name)
    return os.path.join(UPLOADS, str(customer_id), safe)
