import { Plan } from "../gen/catalog/v1/catalog_pb.js";

// Plan names as the API, the CLI and the database write them, and the proto enum the
// services speak (docs/api.md#plans).

export const PLAN_NAMES = ["starter", "growth", "scale"] as const;

export type PlanName = (typeof PLAN_NAMES)[number];

const byName: Record<PlanName, Plan> = { starter: Plan.STARTER, growth: Plan.GROWTH, scale: Plan.SCALE };

export function planFromName(name: string): Plan | undefined {
  return (PLAN_NAMES as readonly string[]).includes(name) ? byName[name as PlanName] : undefined;
}

export function planName(plan: Plan): PlanName | undefined {
  return PLAN_NAMES.find((name) => byName[name] === plan);
}

/** Plans whose keys may call /v1 (docs/api.md#plans: starter gets PLAN_REQUIRED). */
export function planHasApiAccess(plan: PlanName): boolean {
  return plan === "growth" || plan === "scale";
}
