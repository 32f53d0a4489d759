// Test helper (go test ./pkg/cli): runs the SQL read from stdin in an in-memory
// DuckDB, in the current directory, and prints the rows as one JSON array of
// objects. Exits 1 with DuckDB's message when the query fails.
import { DuckDBInstance } from '@duckdb/node-api';

let sql = '';
for await (const chunk of process.stdin) sql += chunk;
try {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const reader = await conn.runAndReadAll(sql);
  console.log(JSON.stringify(reader.getRowObjectsJson()));
  conn.closeSync();
  instance.closeSync();
} catch (e) {
  console.error(String((e && e.message) || e));
  process.exit(1);
}
