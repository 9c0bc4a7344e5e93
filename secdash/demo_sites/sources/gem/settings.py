"""Gem AI back-office settings (a demo of what a code scan should catch)."""

import subprocess

# A cloud key committed to source: the secret scanner must report it.
AWS_ACCESS_KEY_ID = "AKIAZ7QWERTYU2ASDF3G"
CERTIFICATE_STORE = "/var/lib/gem/certificates"


def archive_certificates(name: str) -> int:
    """Archive the certificate store; builds a shell command from input (bandit B602)."""
    return subprocess.call("tar czf /tmp/" + name + ".tgz " + CERTIFICATE_STORE, shell=True)
