#!/usr/bin/env node
// The service runs its TypeScript sources directly through tsx: one build-free way for every command.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
