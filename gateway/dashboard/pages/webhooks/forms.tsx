// The endpoint form (add on the list, edit on the endpoint's page) and the card that
// shows a signing secret once, after the post that made or revealed it.
import type { ComponentChildren } from "preact";
import { ORDER_EVENT_TYPES } from "../../../../common/order-status.js";
import type { Endpoint } from "../../../../gen/webhook/v1/webhook_pb.js";
import { field, type Form } from "../../forms.js";
import { problemText } from "../../kit.js";
import { Csrf } from "../../views/layout.js";

export interface EndpointValues {
  url: string;
  description: string;
  /** "All events" ticked. */
  all: boolean;
  types: string[];
}

export const BLANK: EndpointValues = { url: "", description: "", all: false, types: [] };

export function valuesOfEndpoint(endpoint: Endpoint): EndpointValues {
  return { url: endpoint.url, description: endpoint.description, all: endpoint.eventTypes.length === 0, types: endpoint.eventTypes };
}

export function valuesFrom(form: Form): EndpointValues {
  return { url: field(form, "url").trim(), description: field(form, "description"), all: field(form, "all_events") !== "", types: form.events ?? [] };
}

/** "All events" ticked, or no type ticked: every event type. */
export function subscriptionOf(values: EndpointValues) {
  return values.all || values.types.length === 0 ? { all: true, types: [] } : { all: false, types: values.types };
}

/** The service's field names as the form labels them. */
export function formProblem(error: unknown): string | undefined {
  const problem = problemText(error);
  if (!problem) return undefined;
  return problem
    .replace(/^url /, "Endpoint URL ")
    .replace(/^description /, "Description ")
    .replace(/^events\.(types|all) /, "Events ");
}

export function EndpointForm(props: { id: string; heading: string; action: string; csrf: string; values: EndpointValues; note?: string }) {
  const { values } = props;
  return (
    <section aria-labelledby={props.id}>
      <h2 id={props.id}>{props.heading}</h2>
      <form class="stack card" method="post" action={props.action} aria-labelledby={props.id}>
        <Csrf token={props.csrf} />
        {props.note && <p class="muted small">{props.note}</p>}
        <label>
          Endpoint URL
          <input type="text" inputMode="url" name="url" value={values.url} autoComplete="off" spellcheck={false} placeholder="https://example.com/webhooks" />
        </label>
        <label>
          Description
          <input type="text" name="description" value={values.description} maxLength={500} placeholder="e.g. ERP production" />
        </label>
        <fieldset>
          <legend>Events</legend>
          <p class="muted small" style="margin:0 0 6px">
            Tick “All events”, or the types this endpoint should receive. With none ticked it receives every event.
          </p>
          <label>
            <input type="checkbox" name="all_events" value="1" checked={values.all} />
            All events
          </label>
          {ORDER_EVENT_TYPES.map((type) => (
            <label>
              <input type="checkbox" name="events" value={type} checked={!values.all && values.types.includes(type)} />
              <span class="mono">{type}</span>
            </label>
          ))}
        </fieldset>
        <div>
          <button type="submit">Save endpoint</button>
        </div>
      </form>
    </section>
  );
}

/** A secret shown in this response only: never in a URL, never on a later page. */
export function SecretCard(props: { heading: string; secret: string; children?: ComponentChildren }) {
  return (
    <section class="card" aria-labelledby="secret-heading">
      <h2 id="secret-heading" style="margin-top:0">
        {props.heading}
      </h2>
      <p class="warning" role="alert">
        Copy this secret now and keep it out of source code and logs. It is shown only on this page: reload or leave it and it is gone (you can reveal it
        again later; that is recorded in the audit log).
      </p>
      <code class="secret" aria-label="Signing secret">
        {props.secret}
      </code>
      {props.children}
    </section>
  );
}
