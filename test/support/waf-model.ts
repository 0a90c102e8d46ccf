/**
 * A model of what the stage's web ACL does with one request, read from the synthesized
 * AWS::WAFv2::WebACL: its rules in priority order, the managed rule groups' overrides, labels and
 * the label-match rule after them. AWS WAF cannot run here and AWS does not publish its managed
 * rules' patterns, so each managed rule is modelled by the condition AWS's documentation gives it
 * (the size limit exactly; the attack patterns by their documented examples), inspecting the
 * first 16 KB of the body as CloudFront's web ACLs do by default. It answers which rules matched,
 * which labels were added and whether the request is blocked: enough to show the web ACL's own
 * logic (count overrides, the upload routes' scope) lets real files through, not that AWS's
 * patterns do; the count-mode period in staging shows that (docs/operators/deploy.md).
 */
export interface WafRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface WafVerdict {
  blockedBy?: string;
  /** Rules that matched and counted (managed rules as `<group>:<rule>`). */
  counted: string[];
  labels: string[];
}

/** CloudFront web ACLs inspect the first 16 KB of a body (AssociationConfig's default). */
const inspectedBodyBytes = 16 * 1024;

const text = (b: Buffer) => {
  const raw = b.subarray(0, inspectedBodyBytes).toString('latin1');
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw.replace(/%(?![0-9a-f]{2})/gi, '%25'));
  } catch {
    // A body that is not URL-encoded text is inspected as it is.
  }
  return `${raw}\n${decoded.replace(/&lt;/gi, '<').replace(/&gt;/gi, '>')}`;
};

/** The managed rules of each group, by the conditions their documentation states. */
const managedRules: Record<string, { rule: string; label: string; matches: (r: WafRequest) => boolean }[]> = {
  AWSManagedRulesCommonRuleSet: [
    { rule: 'NoUserAgent_HEADER', label: 'awswaf:managed:aws:core-rule-set:NoUserAgent_Header', matches: (r) => !Object.keys(r.headers).some((h) => h.toLowerCase() === 'user-agent') },
    { rule: 'SizeRestrictions_BODY', label: 'awswaf:managed:aws:core-rule-set:SizeRestrictions_Body', matches: (r) => r.body.length > 8192 },
    { rule: 'CrossSiteScripting_BODY', label: 'awswaf:managed:aws:core-rule-set:CrossSiteScripting_Body', matches: (r) => /<script[\s>]|javascript:|\bon(error|load)\s*=/i.test(text(r.body)) },
    { rule: 'GenericLFI_BODY', label: 'awswaf:managed:aws:core-rule-set:GenericLFI_Body', matches: (r) => /\.\.[/\\]/.test(text(r.body)) },
    { rule: 'GenericRFI_BODY', label: 'awswaf:managed:aws:core-rule-set:GenericRFI_Body', matches: (r) => /https?:\/\/\d{1,3}(\.\d{1,3}){3}/i.test(text(r.body)) },
    { rule: 'EC2MetaDataSSRF_BODY', label: 'awswaf:managed:aws:core-rule-set:EC2MetaDataSSRF_Body', matches: (r) => /169\.254\.169\.254/.test(text(r.body)) },
  ],
  AWSManagedRulesKnownBadInputsRuleSet: [
    { rule: 'JavaDeserializationRCE_BODY', label: 'awswaf:managed:aws:known-bad-inputs:JavaDeserializationRCE_Body', matches: (r) => /java\.lang\.Runtime|rO0AB/.test(text(r.body)) },
    { rule: 'Log4JRCE_BODY', label: 'awswaf:managed:aws:known-bad-inputs:Log4JRCE_Body', matches: (r) => /\$\{jndi:/i.test(text(r.body)) },
  ],
};

type Statement = Record<string, any>;

function statementMatches(s: Statement, r: WafRequest, labels: Set<string>): boolean {
  if (s.AndStatement) return s.AndStatement.Statements.every((x: Statement) => statementMatches(x, r, labels));
  if (s.OrStatement) return s.OrStatement.Statements.some((x: Statement) => statementMatches(x, r, labels));
  if (s.NotStatement) return !statementMatches(s.NotStatement.Statement, r, labels);
  if (s.LabelMatchStatement) return labels.has(s.LabelMatchStatement.Key);
  if (s.RegexMatchStatement) {
    if (!s.RegexMatchStatement.FieldToMatch.UriPath) throw new Error('waf-model: only the URI path is matched by regex');
    return new RegExp(s.RegexMatchStatement.RegexString).test(r.path);
  }
  throw new Error(`waf-model: no model of ${Object.keys(s).join(', ')}`);
}

/** What the web ACL (its synthesized Properties) does with the request. */
export function wafVerdict(webAcl: { Rules: any[] }, r: WafRequest): WafVerdict {
  const labels = new Set<string>();
  const counted: string[] = [];
  for (const rule of [...webAcl.Rules].sort((a, b) => a.Priority - b.Priority)) {
    const s = rule.Statement;
    // One request never passes a rate limit, and a test's address is in no reputation list.
    if (s.RateBasedStatement) continue;
    const group = s.ManagedRuleGroupStatement;
    if (group) {
      const modelled = managedRules[group.Name];
      if (!modelled) continue;
      const overridden = new Set((group.RuleActionOverrides ?? []).filter((o: any) => o.ActionToUse.Count).map((o: any) => o.Name));
      const groupCounts = Boolean(rule.OverrideAction?.Count);
      for (const m of modelled.filter((x) => x.matches(r))) {
        labels.add(m.label);
        if (overridden.has(m.rule) || groupCounts) counted.push(`${group.Name}:${m.rule}`);
        else return { blockedBy: `${group.Name}:${m.rule}`, counted, labels: [...labels] };
      }
      continue;
    }
    if (!statementMatches(s, r, labels)) continue;
    if (rule.Action?.Block) return { blockedBy: rule.Name, counted, labels: [...labels] };
    counted.push(rule.Name);
  }
  return { counted, labels: [...labels] };
}
