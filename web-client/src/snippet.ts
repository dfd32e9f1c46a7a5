// The <script> build: configured by the tag's data attributes, e.g.
// <script src="/lastmile/rum.v1.js" data-sample="0.5" data-privacy async></script>
import { attachWebTransport, init } from './rum';

const tag = document.currentScript as HTMLScriptElement | null;
const d = tag ? tag.dataset : {} as DOMStringMap;
init({
  endpoint: d.endpoint,
  sampleRate: d.sample !== undefined ? Number(d.sample) : 1,
  respectPrivacySignals: d.privacy !== undefined,
});
(window as unknown as { lastmileRUM: object }).lastmileRUM = { attachWebTransport };
