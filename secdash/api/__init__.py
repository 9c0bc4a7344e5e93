"""The JSON API of spec section 7, mounted into the Reflex app."""
