// Shares AI: looks up a design by owner. The SQL is built by concatenation (injection risk).
async function findDesigns(db, owner) {
  const query = "SELECT * FROM designs WHERE owner = '" + owner + "'";
  return db.all(query);
}

module.exports = { findDesigns };
