"""Who is signed in and what they may do: accounts, passwords, sessions, roles and quotas."""
