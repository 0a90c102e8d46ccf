import { defineEntity, isConditionalFailure, service, key, required } from './entity';

/** Small service-wide facts that must be decided once (e.g. which account is the operator's). */
const settings = defineEntity({
  model: { entity: 'setting', version: '1', service },
  attributes: {
    ...required({ name: 'string', value: 'string' }),
  },
  indexes: {
    byName: { pk: key('pk', 'SETTING#${name}'), sk: key('sk', 'SETTING') },
  },
} as const);

export async function getSetting(name: string): Promise<string | undefined> {
  const res = await settings().get({ name }).go({ consistent: true });
  return res.data?.value;
}

/** Sets a value only if none is set yet; returns the value that holds afterwards. */
export async function setSettingOnce(name: string, value: string): Promise<string> {
  try {
    await settings().create({ name, value }).go();
    return value;
  } catch (err) {
    if (!isConditionalFailure(err)) throw err;
    return (await getSetting(name))!;
  }
}
