/**
 * Goods a courier shipment may not carry (regime `X`, never cleared), as data. The list follows
 * the common prohibitions of express couriers and air transport into Argentina; an operator
 * extends or replaces it (pass another list to `matchProhibited` / `classifyShipments`).
 *
 * Matching (no false hit on a word that merely contains a keyword):
 * - Text is normalized first: accents dropped (`pólvora` = `polvora`), lower-cased, every run of
 *   characters other than letters and digits becomes one space (`Li-ion` = `li ion`).
 * - A keyword or category term matches whole words only, and its last word may carry a plural
 *   `s` or `es` (`pistol` matches `pistols`, `munición` matches `municiones`): `gun` does not match
 *   `gunmetal grey`, `arma de fuego` does not match `alarma`.
 * - `except` phrases name allowed goods that contain a keyword (`glue gun`, `pistola de calor`,
 *   `phone with lithium battery`): they are removed from the text before the keywords are tried.
 * - A tariff prefix matches the start of the item's HS or NCM code, digits only (`9302` matches
 *   `9302.00.00`).
 * - The strongest evidence wins: a tariff code first, then the category, then the description.
 *   Within one kind of evidence, the first entry of the list that matches wins.
 */

export interface ProhibitedEntry {
  id: string;
  label: string;
  /** Whole words or phrases, Spanish and English. */
  keywords: readonly string[];
  /** Phrases naming allowed goods that contain a keyword. */
  except?: readonly string[];
  /** Category names (the item's `Category`), matched like keywords. */
  categories: readonly string[];
  /** HS/NCM code prefixes, digits only. */
  tariff_prefixes: readonly string[];
}

export interface ProhibitedMatch {
  id: string;
  label: string;
  matchedOn: 'description' | 'category' | 'tariff_code';
  /** The keyword, category term or tariff prefix that matched. */
  term: string;
}

export interface ProhibitedInput {
  description?: string | null;
  category?: string | null;
  hsCode?: string | null;
  ncm?: string | null;
}

export const prohibitedGoods: readonly ProhibitedEntry[] = [
  {
    id: 'weapons',
    label: 'Weapons: firearms, their parts, and electric or chemical self-defence weapons',
    keywords: [
      'firearm', 'handgun', 'pistol', 'revolver', 'rifle', 'shotgun', 'gun', 'gun barrel', 'stun gun', 'taser', 'pepper spray', 'tear gas',
      'arma de fuego', 'armas de fuego', 'pistola', 'revolver', 'escopeta', 'fusil', 'subfusil', 'carabina', 'ametralladora',
      'picana electrica', 'gas pimienta', 'gas lacrimogeno',
    ],
    except: [
      'glue gun', 'hot glue gun', 'heat gun', 'hot air gun', 'massage gun', 'fascia gun', 'spray gun', 'paint gun', 'nail gun', 'staple gun',
      'caulking gun', 'caulk gun', 'grease gun', 'soldering gun', 'rivet gun', 'tattoo gun', 'label gun', 'price gun', 'thermometer gun',
      'temperature gun', 'water gun', 'gun metal', 'top gun', 'pistol grip',
      'pistola de calor', 'pistola de aire caliente', 'pistola de silicona', 'pistola de pegamento', 'pistola encoladora', 'pistola de pintura',
      'pistola de pintar', 'pistola pulverizadora', 'pistola masajeadora', 'pistola de masaje', 'pistola de masajes', 'pistola de agua',
      'pistola de clavos', 'pistola de soldar', 'pistola de riego', 'pistola para riego', 'pistola de lavado', 'pistola de grasa',
      'pistola engrapadora', 'pistola termometro', 'pistola de temperatura',
    ],
    categories: ['weapons', 'firearms', 'guns', 'armas', 'armas de fuego'],
    tariff_prefixes: ['9301', '9302', '9303', '9305'],
  },
  {
    id: 'ammunition_explosives',
    label: 'Ammunition, explosives and fireworks',
    keywords: [
      'ammunition', 'ammo', 'gunpowder', 'black powder', 'explosive', 'detonator', 'blasting cap', 'dynamite', 'grenade', 'firework', 'firecracker',
      'shotgun shell',
      'municion', 'polvora', 'explosivo', 'detonador', 'dinamita', 'fuegos artificiales', 'pirotecnia', 'petardo', 'cartucho de escopeta',
    ],
    except: ['ammo box', 'ammo can'],
    categories: ['ammunition', 'explosives', 'fireworks', 'municiones', 'explosivos', 'pirotecnia'],
    tariff_prefixes: ['3601', '3602', '3603', '3604', '9306'],
  },
  {
    id: 'narcotics',
    label: 'Narcotics and psychotropic drugs',
    keywords: [
      'narcotic', 'cocaine', 'heroin', 'marijuana', 'marihuana', 'cannabis', 'hashish', 'opium', 'methamphetamine', 'fentanyl', 'mdma', 'ecstasy',
      'lsd', 'psilocybin', 'magic mushroom', 'coca leaf',
      'estupefaciente', 'cocaina', 'heroina', 'opio', 'metanfetamina', 'psilocibina', 'hongos alucinogenos', 'hoja de coca', 'hojas de coca',
    ],
    except: ['cannabis sativa seed oil', 'aceite de semilla de cannabis sativa'],
    categories: ['narcotics', 'estupefacientes'],
    tariff_prefixes: ['121130', '130211', '293971'],
  },
  {
    id: 'currency',
    label: 'Banknotes and counterfeit money',
    keywords: [
      'banknote', 'bank note', 'counterfeit money', 'counterfeit currency', 'fake money', 'prop money',
      'billete de banco', 'billetes de banco', 'billetes falsos', 'dinero falso', 'moneda falsa', 'papel moneda', 'dinero en efectivo',
    ],
    categories: ['currency', 'banknotes', 'papel moneda'],
    tariff_prefixes: ['4907'],
  },
  {
    id: 'live_animals',
    label: 'Live animals',
    keywords: [
      'live animal', 'live fish', 'live bird', 'live insect', 'live reptile', 'live shrimp',
      'animal vivo', 'animales vivos', 'pez vivo', 'peces vivos', 'ave viva', 'aves vivas', 'insecto vivo', 'insectos vivos', 'reptil vivo', 'reptiles vivos',
    ],
    categories: ['live animals', 'animales vivos'],
    tariff_prefixes: ['0101', '0102', '0103', '0104', '0105', '0106', '0301'],
  },
  {
    id: 'lithium_batteries_alone',
    label: 'Lithium batteries shipped alone, not in or with equipment (air transport rule)',
    keywords: [
      'lithium battery', 'lithium batteries', 'lithium ion battery', 'lithium ion batteries', 'li ion battery', 'li ion batteries',
      'lithium polymer battery', 'lithium polymer batteries', 'lipo battery', 'lipo batteries', 'lithium cell', 'power bank', 'powerbank',
      'portable charger',
      'bateria de litio', 'baterias de litio', 'bateria de iones de litio', 'baterias de iones de litio', 'pila de litio', 'pilas de litio',
      'bateria externa', 'baterias externas', 'cargador portatil',
    ],
    except: [
      'with lithium battery', 'with lithium batteries', 'with lithium ion battery', 'with li ion battery', 'with rechargeable lithium battery',
      'contains lithium battery', 'contains lithium batteries', 'includes lithium battery', 'lithium battery included', 'lithium batteries included',
      'lithium battery charger', 'lithium batteries charger',
      'con bateria de litio', 'con baterias de litio', 'con bateria de iones de litio', 'incluye bateria de litio', 'bateria de litio incluida',
      'cargador de bateria de litio', 'cargador de baterias de litio',
    ],
    categories: ['power banks', 'lithium batteries', 'baterias de litio'],
    tariff_prefixes: ['850650', '850760'],
  },
  {
    id: 'flammable',
    label: 'Flammable liquids and gases (dangerous goods)',
    keywords: [
      'flammable liquid', 'lighter fluid', 'lighter gas', 'butane', 'gasoline', 'kerosene',
      'liquido inflamable', 'gas butano', 'gasolina', 'queroseno', 'kerosen',
    ],
    except: ['gasoline engine', 'gasoline powered', 'gasoline generator', 'motor a gasolina', 'motor de gasolina', 'a gasolina'],
    categories: ['flammable', 'dangerous goods', 'inflamables', 'mercancias peligrosas'],
    tariff_prefixes: ['271012', '271113'],
  },
];

/** Accents dropped, lower case, every run of other characters than letters and digits -> one space. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A whole-word matcher for a phrase whose last word may carry a plural s / es, with the phrase as
 * normalized text: the text must contain it for the matcher to match, so a plain substring test
 * rules most texts out before the expression runs.
 */
interface Phrase {
  term: string;
  needle: string;
  re: RegExp;
}

function phrase(term: string): Phrase {
  const needle = normalizeText(term);
  return { term, needle, re: new RegExp(`(?:^| )${escape(needle)}(?:s|es)?(?= |$)`, 'g') };
}

interface Compiled {
  entry: ProhibitedEntry;
  keywords: Phrase[];
  except: Phrase[];
  categories: Phrase[];
  prefixes: string[];
}

const compiledLists = new WeakMap<readonly ProhibitedEntry[], Compiled[]>();

function compile(list: readonly ProhibitedEntry[]): Compiled[] {
  let c = compiledLists.get(list);
  if (!c) {
    c = list.map((entry) => ({
      entry,
      keywords: entry.keywords.map(phrase),
      except: (entry.except ?? []).map(phrase),
      categories: entry.categories.map(phrase),
      prefixes: entry.tariff_prefixes.map((p) => p.replace(/\D/g, '')).filter(Boolean),
    }));
    compiledLists.set(list, c);
  }
  return c;
}

function findTerm(text: string, terms: readonly Phrase[], except: readonly Phrase[] = []): string | null {
  if (!text) return null;
  let t = text;
  for (const { needle, re } of except) {
    if (!t.includes(needle)) continue;
    re.lastIndex = 0;
    t = t.replace(re, ' ');
  }
  for (const { term, needle, re } of terms) {
    if (!t.includes(needle)) continue;
    re.lastIndex = 0;
    if (re.test(t)) return term;
  }
  return null;
}

/** The first prohibited-goods entry the item matches, with what matched, or null. */
export function matchProhibited(input: ProhibitedInput, list: readonly ProhibitedEntry[] = prohibitedGoods): ProhibitedMatch | null {
  const compiled = compile(list);
  const codes = [input.hsCode, input.ncm].map((c) => (c ?? '').replace(/\D/g, '')).filter(Boolean);
  for (const c of compiled) {
    const prefix = c.prefixes.find((p) => codes.some((code) => code.startsWith(p)));
    if (prefix) return { id: c.entry.id, label: c.entry.label, matchedOn: 'tariff_code', term: prefix };
  }
  const category = normalizeText(input.category ?? '');
  if (category) {
    for (const c of compiled) {
      const term = findTerm(category, c.categories);
      if (term) return { id: c.entry.id, label: c.entry.label, matchedOn: 'category', term };
    }
  }
  const description = normalizeText(input.description ?? '');
  if (description) {
    for (const c of compiled) {
      const term = findTerm(description, c.keywords, c.except);
      if (term) return { id: c.entry.id, label: c.entry.label, matchedOn: 'description', term };
    }
  }
  return null;
}
