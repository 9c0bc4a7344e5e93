# expect: none (messages about passwords are not passwords; eval only in comments and strings)
PASSWORD_ERROR = "Password must be at least 12 characters long"
password_prompt = "Enter your password: "
TOKEN_HELP = "Paste the token shown on the settings page"


def check(password: str) -> str | None:
    # Never eval(password) or log it.
    note = "eval(x) is not used here"
    if len(password) < 12:
        return PASSWORD_ERROR
    return None if note else password_prompt
