"""Reflex page states: validate input, call services, turn domain errors into toasts."""
