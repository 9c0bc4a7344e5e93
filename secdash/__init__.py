"""SecDash: a security-monitoring console for a handful of websites."""
