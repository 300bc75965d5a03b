// The frame of the hosted pages (docs/payments.md#hosted-checkout): server-rendered, no JavaScript, and
// narrow enough for a phone, in the buyer's language (docs/payments.md#language) with a
// link to the other one.
import type { ComponentChildren } from "preact";
import { messagesFor, type Language } from "../../common/i18n/index.js";
import { Document } from "../html/render.js";
import { HOSTED_CSS } from "./styles.js";

export function HostedPage(props: { title: string; language: Language; children: ComponentChildren }) {
  const other: Language = props.language === "id" ? "en" : "id";
  return (
    <Document title={props.title} css={HOSTED_CSS} lang={props.language}>
      <div class="wrap">
        <p class="language">
          {/* Relative to this page: the same page in the other language, kept for the visit. */}
          <a href={`?lang=${other}`} hreflang={other} lang={other}>
            {messagesFor(props.language).switchTo}
          </a>
        </p>
        {props.children}
      </div>
    </Document>
  );
}

/** A short page for "not found", "try again later" and the like. */
export function MessagePage(props: { title: string; message: string; language: Language; children?: ComponentChildren }) {
  return (
    <HostedPage title={props.title} language={props.language}>
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
