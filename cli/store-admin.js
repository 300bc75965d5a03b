#!/usr/bin/env node
// The operator CLI's entry: loads TypeScript through tsx, then runs it.
import { register } from "tsx/esm/api";

register();
await import("./store-admin.ts");
