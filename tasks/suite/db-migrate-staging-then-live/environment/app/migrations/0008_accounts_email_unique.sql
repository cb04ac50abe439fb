-- Logins are case-insensitive since 3.2: one account per address.
CREATE UNIQUE INDEX accounts_email_nocase ON accounts (lower(email));
