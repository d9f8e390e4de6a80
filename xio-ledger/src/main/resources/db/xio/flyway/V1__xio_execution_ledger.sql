-- xio's execution ledger (exactly-once across servers): one row per idempotency key, written in the same
-- transaction as the call's own writes. Portable between H2 and PostgreSQL; the same as LedgerSchema creates for
-- the default table name. Run it with a schema history table of its own (docs/exactly-once.md), or copy it into
-- your own migrations under a version of yours.
CREATE TABLE IF NOT EXISTS xio_execution_ledger (
    idempotency_key VARCHAR(128) NOT NULL PRIMARY KEY,
    -- 1: a value, 2: an application error that committed; NULL: claimed, the work still running
    outcome SMALLINT,
    answer BYTEA,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at TIMESTAMP WITH TIME ZONE NOT NULL
);

-- The cleaner deletes expired entries oldest first, in small batches.
CREATE INDEX IF NOT EXISTS xio_execution_ledger_expires_at ON xio_execution_ledger (expires_at);
