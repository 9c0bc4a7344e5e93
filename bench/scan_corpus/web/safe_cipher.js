// expect: none (cipher.update and an "update" message are not SQL)
const crypto = require("crypto");
function encrypt(key, iv, text) {
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  const status = "update " + text.length + " bytes";
  return { data: cipher.update(text, "utf8", "hex") + cipher.final("hex"), status };
}
module.exports = { encrypt };
