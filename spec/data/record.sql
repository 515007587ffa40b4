-- The table behind /record (spec/README.md). The harness runs this file on every database it
-- prepares, so it must stay idempotent.
CREATE TABLE IF NOT EXISTS record (
    name  text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9_.-]{1,64}$'),
    value text NOT NULL CHECK (octet_length(value) <= 1024)
);

-- The records honours-basic reads: r0 .. r9999, deterministic, the same on every machine. Run
-- again before a measurement (database.Database.reset), it restores any that were changed.
INSERT INTO record (name, value)
SELECT 'r' || i, 'value of r' || i FROM generate_series(0, 9999) AS i
ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value WHERE record.value <> EXCLUDED.value;
