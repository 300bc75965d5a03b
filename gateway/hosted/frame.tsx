// The frame of the hosted pages (docs/payments.md#hosted-checkout): server-rendered, no JavaScript, and
// narrow enough for a phone.
import type { ComponentChildren } from "preact";
import { Document } from "../html/render.js";
import { HOSTED_CSS } from "./styles.js";

export function HostedPage(props: { title: string; lang?: string; children: ComponentChildren }) {
  return (
    <Document title={props.title} css={HOSTED_CSS} lang={props.lang}>
      <div class="wrap">{props.children}</div>
    </Document>
  );
}

/** A short page for "not found", "try again later" and the like. */
export function MessagePage(props: { title: string; message: string; children?: ComponentChildren }) {
  return (
    <HostedPage title={props.title}>
      <main class="card">
        <section>
          <h1 class="store">{props.title}</h1>
          <p>{props.message}</p>
          {props.children}
        </section>
      </main>
    </HostedPage>
  );
}
