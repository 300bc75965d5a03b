// `npm run lint`: the type-aware rules tsc does not hold, such as a promise nobody awaits
// or handles, an async function where a callback's return is ignored, or an `any` from
// JSON or an untyped library flowing on unchecked. Type information comes from
// tsconfig.json, so the rules see what `tsc --noEmit` sees.
import tseslint from "typescript-eslint";

export default tseslint.config(
  // gen/ is protoc-gen-es output, rewritten by `npm run generate` and never edited.
  // test/docs/generated-client/ imports a client generated in that test's temp dir and is
  // type-checked there (tsc --strict), not here.
  { ignores: ["gen/", "dist/", "node_modules/", ".data/", "test/artifacts/", "test/docs/generated-client/"] },
  {
    files: ["**/*.{ts,tsx,js}"],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // The plain JavaScript files (this one, the CLI's entry, the build script) are in no
        // tsconfig: they get a default project, typed from their JSDoc.
        projectService: { allowDefaultProject: ["*.js", "cli/*.js", "scripts/*.js"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // Async on purpose without an await: an interface that returns a promise, or a
      // handler whose throw must reach the caller as a rejection.
      "@typescript-eslint/require-await": "off",
      // A leading `_` marks what is unused on purpose: an argument an interface passes, a
      // field a rest spread leaves out.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // A `let` that a closure reads before its one assignment (the gateway's own URL, known
      // once it listens) cannot be a const.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ["test/**"],
    rules: {
      // Tests read whole JSON answers and messages as `any` and let the assertion be the
      // check; a wrong shape fails the test either way. Floating and misused promises
      // stay errors here too: an un-awaited t.throwsAsync passes whatever happens.
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
);
