// expect: none (character allow-lists written out are not keys)
const validator = require("validator");

module.exports = {
  code: (value) => validator.isWhitelisted(String(value), "qwertyuiopasdfghjklzxcvbnmQWERTYUIOPASDFGHJKLZXCVBNM1234567890_-"),
  tags: (value) => validator.isWhitelisted(String(value), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,"),
};
