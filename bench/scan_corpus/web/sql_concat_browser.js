// expect: CWE-89 (SQL spliced together with a value)
function designsOf(db, owner) {
  const query = "SELECT * FROM designs WHERE owner = '" + owner + "'";
  return db.exec(query);
}
