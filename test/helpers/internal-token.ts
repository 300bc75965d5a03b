// The internal token of every service a test starts (in this process or spawned) and of
// every client a test makes: the tests run as production does, each internal call
// authenticated, so a client that forgets the token fails a test.
import { makeInternalToken } from "../../platform/rpc-auth.js";

export const TEST_INTERNAL_TOKEN = makeInternalToken();
