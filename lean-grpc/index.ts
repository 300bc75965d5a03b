// A lean unary gRPC path for Connect: see README.md.
export { collectUnaryRoutes, createLeanUnaryHandler, installLeanUnaryPath, type LeanServerOptions, type UnaryRoute } from "./server.js";
export { createLeanGrpcTransport, type LeanLog, type LeanTransportOptions } from "./client.js";
export { DEFAULT_READ_MAX_BYTES, wellFormedError } from "./wire.js";
