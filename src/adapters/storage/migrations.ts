import type { SqlClient } from './sql-port.js'

/**
 * The one set of migrations, for PGlite and PostgreSQL alike. Append only: a released
 * migration never changes. `{{schema}}` is replaced by the quoted schema name.
 *
 * JSON documents are stored as `text`, not `jsonb`: jsonb rejects `\u0000`, which a decoded
 * revert reason may legitimately contain, and we never query inside them.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'payments and receipts',
    sql: `
CREATE TABLE {{schema}}.payments (
  id              text PRIMARY KEY,
  network         text NOT NULL,
  asset           text NOT NULL,
  payer           text NOT NULL,
  nonce           text NOT NULL,
  pay_to          text NOT NULL,
  amount          numeric(78, 0) NOT NULL CHECK (amount >= 0),
  valid_before    numeric(78, 0) NOT NULL,
  payload_hash    text NOT NULL,
  payload         text NOT NULL,
  request_hash    text NOT NULL,
  status          text NOT NULL CHECK (status IN
    ('verifying', 'verified', 'preflight_done', 'settling', 'settled', 'settle_pending', 'failed')),
  attempts        integer NOT NULL DEFAULT 1,
  result          text,
  settlement_tx   text,
  settle_response text,
  receipt_id      text UNIQUE,
  failure         text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  -- The authorization is the payment: one EIP-3009 nonce per payer and token, ever.
  CONSTRAINT payments_authorization_unique UNIQUE (network, asset, payer, nonce),
  CONSTRAINT payments_settled_complete CHECK
    (status <> 'settled' OR (settlement_tx IS NOT NULL AND receipt_id IS NOT NULL AND result IS NOT NULL))
);
CREATE INDEX payments_unresolved ON {{schema}}.payments (updated_at)
  WHERE status IN ('verifying', 'verified', 'preflight_done', 'settling', 'settle_pending');
CREATE INDEX payments_settled_pay_to ON {{schema}}.payments (pay_to) WHERE status = 'settled';

CREATE TABLE {{schema}}.receipts (
  id          text PRIMARY KEY,
  payment_id  text NOT NULL UNIQUE REFERENCES {{schema}}.payments (id),
  receipt     text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    version: 2,
    name: 'reconciler schedule; preflight_done folded into verified',
    sql: `
-- preflight_done meant "nothing sent yet", like verified: the request that left a row there
-- died before settling, so it failed and may be retried (what the reconciler did with it).
UPDATE {{schema}}.payments SET status = 'failed', updated_at = now(),
  failure = '{"status":503,"code":"payment_in_progress","message":"the request handling this payment stopped before settlement; retry it"}'
  WHERE status = 'preflight_done';
ALTER TABLE {{schema}}.payments DROP CONSTRAINT payments_status_check;
ALTER TABLE {{schema}}.payments ADD CONSTRAINT payments_status_check CHECK (status IN
  ('verifying', 'verified', 'settling', 'settled', 'settle_pending', 'failed'));
-- When the reconciler looks next (lease or back-off), and how often it found nothing final.
ALTER TABLE {{schema}}.payments ADD COLUMN next_check_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE {{schema}}.payments ADD COLUMN reconcile_attempts integer NOT NULL DEFAULT 0;
DROP INDEX {{schema}}.payments_unresolved;
CREATE INDEX payments_unresolved ON {{schema}}.payments (next_check_at)
  WHERE status IN ('verifying', 'verified', 'settling', 'settle_pending');
`,
  },
  {
    version: 3,
    name: 'owner lease on unresolved payments',
    sql: `
-- The request (or reconciler, or retry) working on a payment holds it until lease_until, and
-- renews it while it lives; a payment whose lease ran out has no living owner and may be taken
-- over at once, instead of after a fixed stale window. Rows from before: their owner is gone.
ALTER TABLE {{schema}}.payments ADD COLUMN lease_until timestamptz NOT NULL DEFAULT now();
`,
  },
  {
    version: 4,
    name: 'settler leases',
    sql: `
CREATE TABLE {{schema}}.settlers (
  address     text PRIMARY KEY,
  instance    text NOT NULL,
  lease_until timestamptz NOT NULL
);
`,
  },
  {
    version: 5,
    name: 'x402 payment-identifier',
    sql: `
-- The x402 payment-identifier extension's id, when the buyer sent one. Unique per payer, so two
-- payments can never hold one id (the second is a 409), and a buyer cannot block another's ids.
ALTER TABLE {{schema}}.payments ADD COLUMN payment_identifier text;
CREATE UNIQUE INDEX payments_payment_identifier ON {{schema}}.payments (payer, payment_identifier)
  WHERE payment_identifier IS NOT NULL;
`,
  },
  {
    version: 6,
    name: 'identifiers bound at verification; unverified rows prunable',
    sql: `
-- When the payment verified (the facilitator accepted it): NULL for a payment that never did.
-- A failed row that never verified holds no money fact and is pruned once its authorization
-- expired; one that verified is kept.
ALTER TABLE {{schema}}.payments ADD COLUMN verified_at timestamptz;
UPDATE {{schema}}.payments SET verified_at = updated_at
  WHERE status IN ('verified', 'settling', 'settled', 'settle_pending') OR result IS NOT NULL;
-- The payment-identifier a claim carries waits here until its payment verifies; only then is
-- it bound (payment_identifier, unique per payer): a payment that never verified (a forged
-- signature naming someone else as payer) can neither take nor block anyone's identifier.
ALTER TABLE {{schema}}.payments ADD COLUMN requested_identifier text;
UPDATE {{schema}}.payments SET requested_identifier = payment_identifier, payment_identifier = NULL
  WHERE verified_at IS NULL AND payment_identifier IS NOT NULL;
CREATE INDEX payments_unverified_failed ON {{schema}}.payments (valid_before)
  WHERE status = 'failed' AND verified_at IS NULL;
`,
  },
  {
    version: 7,
    name: 'settlement reverts',
    sql: `
-- Every settlement transaction that reverted on chain without moving the payment: it cost the
-- settler gas, so its payer is refused for a while (checked on every paid call by payer).
CREATE TABLE {{schema}}.settlement_reverts (
  transaction text PRIMARY KEY,
  payment_id  text NOT NULL,
  payer       text NOT NULL,
  reverted_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX settlement_reverts_payer ON {{schema}}.settlement_reverts (payer, reverted_at);
`,
  },
]

/** Quotes a schema name after checking it is a plain identifier. */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`invalid schema name ${JSON.stringify(schema)}: use [a-z_][a-z0-9_]*`)
  }
  return `"${schema}"`
}

/** Arbitrary constant: the advisory lock that serialises migrations across instances. */
const MIGRATION_LOCK = 402_840_2

/**
 * Brings `schema` up to date, inside one transaction holding an advisory lock, so instances
 * starting together against one PostgreSQL apply each migration exactly once.
 */
export async function migrate(db: SqlClient, schema: string): Promise<number[]> {
  const q = quoteSchema(schema)
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK])
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${q}`)
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${q}.schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    const { rows } = await tx.query<{ version: number }>(
      `SELECT version FROM ${q}.schema_migrations`,
    )
    const done = new Set(rows.map((row) => Number(row.version)))
    const applied: number[] = []
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue
      for (const statement of splitStatements(migration.sql.replaceAll('{{schema}}', q))) {
        await tx.query(statement)
      }
      await tx.query(`INSERT INTO ${q}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ])
      applied.push(migration.version)
    }
    return applied
  })
}

/** Splits a migration into statements (ours contain no semicolons inside literals). */
function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*\n/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0)
}
