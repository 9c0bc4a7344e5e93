"""Four small demo sites served by SecDash itself, so a fresh install monitors something real."""
