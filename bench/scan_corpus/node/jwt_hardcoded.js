// expect: CWE-798 (a JWT signing secret written in the code)
const jwt = require("jsonwebtoken");

function issue(user) {
  return jwt.sign({ sub: user.id }, "s3cr3t-signing-key-2024", { expiresIn: "1h" });
}

module.exports = { issue };
