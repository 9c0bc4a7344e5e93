"""Alerting: channels (apprise), rules, alert signals from the monitor, scanner, drills and sign-in, deliveries."""
