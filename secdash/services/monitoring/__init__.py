"""The monitored sites: the site list, probes and their schedule, header grades and the findings a probe opens."""
