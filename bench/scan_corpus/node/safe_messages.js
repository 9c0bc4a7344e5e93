// expect: none (error messages and prompts that mention passwords are not passwords)
const errors = {};
const passwordError = "Password must be 8 to 18 characters including numbers, lowercase and uppercase letters.";
const passwordPrompt = "npm password: ";
const verifyError = "Password must match";

function validate(password, verify) {
  if (password.length < 8) {
    errors.passwordError = passwordError;
  }
  if (password !== verify) {
    errors.verifyError = verifyError;
  }
  return { errors, prompt: passwordPrompt };
}

module.exports = { validate };
