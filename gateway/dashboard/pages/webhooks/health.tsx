// What an endpoint is doing now (healthy, failing, disabled by the system or by the
// store), as the list, the endpoint's page and the overview say it (docs/webhooks.md).
import type { Endpoint, EndpointHealth } from "../../../../gen/webhook/v1/webhook_pb.js";
import { Time } from "../../../html/components.js";

export function EndpointStatus({ endpoint }: { endpoint: Endpoint }) {
  if (endpoint.enabled) return <span class="badge badge-enabled">Enabled</span>;
  return (
    <>
      <span class="badge badge-disabled">Disabled</span>
      {endpoint.disabledReason && <span class="small muted"> {endpoint.disabledReason}</span>}
    </>
  );
}

/** What an endpoint is doing now, as the list and the overview say it. */
export type EndpointState = "healthy" | "failing" | "disabled by the system" | "disabled";

export function endpointState(endpoint: Endpoint): EndpointState {
  if (!endpoint.enabled) return endpoint.disabledReason === "" || endpoint.disabledReason === "disabled by the store" ? "disabled" : "disabled by the system";
  return endpoint.failingSince ? "failing" : "healthy";
}

/** The state with what it rests on: since when it fails, or why it is off. */
export function HealthBadge({ endpoint }: { endpoint: Endpoint }) {
  const state = endpointState(endpoint);
  if (state === "healthy") return <span class="badge badge-enabled">Healthy</span>;
  if (state === "failing")
    return (
      <>
        <span class="badge badge-failed">Failing</span>{" "}
        <span class="small muted">
          since <Time iso={endpoint.failingSince} />
        </span>
      </>
    );
  return <EndpointStatus endpoint={endpoint} />;
}

/** "12 of 14 (86 %)" over 24 h; "no attempt" when none. */
export function SuccessRate({ health }: { health: EndpointHealth | undefined }) {
  if (!health || health.attempts24h === 0) return <span class="muted">no attempt</span>;
  const percent = Math.floor((health.succeeded24h * 100) / health.attempts24h);
  return (
    <span class="num">
      {health.succeeded24h} of {health.attempts24h} ({percent} %)
    </span>
  );
}

export const eventsText = (endpoint: Endpoint) => (endpoint.eventTypes.length === 0 ? "All events" : endpoint.eventTypes.join(", "));
