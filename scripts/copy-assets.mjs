#!/usr/bin/env node
// The compiler emits JavaScript only: the dashboard's templates and static files are copied beside it, so
// the compiled dashboard finds them where the sources do (next to its index).
import { cpSync } from 'node:fs';

for (const folder of ['views', 'assets']) {
  cpSync(`src/dashboard/${folder}`, `dist/dashboard/${folder}`, { recursive: true });
}
