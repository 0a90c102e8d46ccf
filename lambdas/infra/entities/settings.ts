import { isConditionalFailure } from './entity';
import { settings } from './settings/setting';

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

/** Sets a value, replacing any (an operator's setting such as `riskRules`). */
export async function putSetting(name: string, value: string): Promise<void> {
  await settings().put({ name, value }).go();
}
