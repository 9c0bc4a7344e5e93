# expect: CWE-798 (a cloud access key committed in the code)
AWS_REGION = "eu-west-1"
AWS_ACCESS_KEY_ID = "AKIAZ7QWERTYU2ASDF3G"
