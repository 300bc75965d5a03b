import type { ScryptParams } from "../../services/catalog/accounts/passwords.js";

/**
 * The password hashing cost of test stacks: the same scrypt code path at 1/128 of the
 * work. At the real cost (0.3 s of CPU each, on purpose) a few test files signing in
 * beside each other on two cores queue hashes past their deadlines. Tests about the
 * cost itself use SCRYPT_PARAMS.
 */
export const TEST_SCRYPT: ScryptParams = Object.freeze({ N: 2 ** 10, r: 8, p: 1 });
