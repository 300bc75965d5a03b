// A key's mode is written in its first characters, so anything that sees only the
// shown prefix (the dashboard's list, the CLI) can tell a live key from a test key.

export const KEY_MODE_PREFIXES = { live: "sk_live_", test: "sk_test_" } as const;
export type KeyMode = keyof typeof KEY_MODE_PREFIXES;

/** What the dashboard calls each mode. */
export const KEY_MODE_NAMES: Record<KeyMode, string> = { live: "Live", test: "Test" };

/** The mode of a key, or of the prefix shown for it; undefined for something that is no key of ours. */
export function keyMode(keyOrPrefix: string): KeyMode | undefined {
  return (Object.keys(KEY_MODE_PREFIXES) as KeyMode[]).find((mode) => keyOrPrefix.startsWith(KEY_MODE_PREFIXES[mode]));
}

/** Whether `value` names a mode (`live`, `test`), as `--mode` in the CLI takes it. */
export function isKeyMode(value: string): value is KeyMode {
  return Object.hasOwn(KEY_MODE_PREFIXES, value);
}
