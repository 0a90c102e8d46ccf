import { useEffect, useState } from 'preact/hooks';
import { html } from '../html';
import { t, when } from '../i18n';
import { api, messageOf, must } from '../api';

type Proof = {
  awb_number: string;
  delivered_at: string;
  recipient: { name: string; dni: string; relation: string };
  location: { latitude: number | null; longitude: number | null; address: string | null } | null;
  file: { file_name: string; mime_type: string; download_url: string };
  retain_until: string;
};

/** Where it was delivered, in words: the address, the coordinates, or both. */
function placeOf(l: Proof['location']): string {
  if (!l) return '—';
  const coords = l.latitude !== null && l.longitude !== null ? `${l.latitude}, ${l.longitude}` : null;
  return [l.address, coords].filter(Boolean).join(' · ') || '—';
}

/** The AWB's proof of delivery (issue 44), on its page: /console/manifests/<batch>?awb=<awb>. */
export function DeliveryProof(props: { awb: string }) {
  const [proof, setProof] = useState<Proof | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setProof(undefined);
    setError(null);
    must(api.value.GET('/api/v1/deliveries', { params: { query: { awb_number: props.awb, per_page: '1' } } }))
      .then((body) => live && setProof((body.data[0] as Proof | undefined) ?? null))
      .catch((err) => live && setError(messageOf(err)));
    return () => {
      live = false;
    };
  }, [props.awb]);

  return html`<section class="panel" aria-labelledby="proof-h">
    <h3 id="proof-h">${t('deliveryProof', { awb: props.awb })}</h3>
    ${error && html`<p class="err">${error}</p>`}
    ${proof === undefined && !error && html`<p>${t('loading')}</p>`}
    ${proof === null && html`<p class="muted">${t('proofNone')}</p>`}
    ${proof &&
    html`<dl class="facts">
      <dt>${t('proofDeliveredAt')}</dt><dd>${when(proof.delivered_at)}</dd>
      <dt>${t('proofRecipient')}</dt><dd>${proof.recipient.name}</dd>
      <dt>${t('proofDni')}</dt><dd>${proof.recipient.dni}</dd>
      <dt>${t('proofRelation')}</dt><dd>${proof.recipient.relation}</dd>
      <dt>${t('proofPlace')}</dt><dd>${placeOf(proof.location)}</dd>
      <dt>${t('proofFile')}</dt><dd><a href=${proof.file.download_url} target="_blank" rel="noopener noreferrer">${t('proofOpen', { name: proof.file.file_name })}</a></dd>
      <dt>${t('proofKeptUntil')}</dt><dd>${when(proof.retain_until)}</dd>
    </dl>`}
  </section>`;
}
