-- Per-user screen preferences (a data table's sorting and hidden columns, keyed by the screen's table): kept on the
-- server so a choice follows the user to another browser. A user's rows go with the user.
CREATE TABLE user_preferences (
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 64),
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, key)
);
