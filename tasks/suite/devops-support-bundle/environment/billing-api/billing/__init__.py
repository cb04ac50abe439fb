"""billing-api: invoices for the subscription service."""
