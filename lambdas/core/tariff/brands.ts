/**
 * Brand and model names as trade vocabulary: a product line name (`AirPods`, `PlayStation`, `Kindle`)
 * names a kind of product as plainly as its generic word does, and couriers often write only the name.
 * Each entry maps a line name, as couriers spell it (the maker's name before it, when written, goes
 * with it), to the generic words, Spanish and English, of the product type it names. The classifier
 * reads those words after the name (see `classifier.ts`, `queryTerms`); when the description also names
 * a product itself (`Funda AirPods`), they count as what the product fits, not as what it is.
 *
 * Only names of one kind of product are listed: a maker of many kinds (Sony, Samsung, Apple alone,
 * JBL alone) names none. A modest list of common e-commerce names, not one entry per description.
 */
const lines: readonly [names: string, maker: string, product: string][] = [
  // Audio
  ['airpods; airpod', 'apple', 'auriculares earphones'],
  ['galaxy buds', 'samsung', 'auriculares earphones'],
  ['quietcomfort', 'bose', 'auriculares headphones'],
  ['soundlink', 'bose', 'parlante speaker'],
  ['jbl flip; jbl charge; jbl go; jbl clip; jbl boombox; jbl partybox', '', 'parlante speaker'],
  ['echo dot; alexa', 'amazon', 'parlante inteligente smart speaker'],
  ['homepod', 'apple', 'parlante inteligente smart speaker'],
  // Phones, computers, tablets, readers, watches
  ['iphone', 'apple', 'celular smartphone'],
  ['ipad', 'apple', 'tablet'],
  ['macbook; thinkpad; chromebook; zenbook; vivobook; ideapad', 'apple; lenovo; asus', 'notebook laptop'],
  ['kindle; kobo', 'amazon', 'ereader ebook reader'],
  ['apple watch; galaxy watch; amazfit; fitbit; mi band; xiaomi band', 'samsung', 'smartwatch reloj inteligente'],
  ['airtag', 'apple', 'localizador tracker'],
  ['gshock; g shock', 'casio', 'reloj watch'],
  // Games
  ['playstation; ps5; ps4; xbox; nintendo switch; steam deck', 'sony; microsoft; valve', 'consola videojuegos game console'],
  ['dualsense; dualshock', 'sony', 'joystick gamepad'],
  // Cameras and drones
  ['gopro', '', 'camara de accion action camera'],
  ['dji; mavic', '', 'dron drone unmanned aircraft'],
  // Home
  ['roomba', 'irobot', 'aspiradora robot robot vacuum'],
  ['tupperware; tupper', '', 'recipiente plastico food container'],
  // Toys
  ['lego; duplo', '', 'bloques de construccion building blocks'],
  ['barbie', 'mattel', 'muneca doll'],
  ['hot wheels', 'mattel', 'autitos de juguete toy car'],
  ['nerf', 'hasbro', 'juguete toy'],
  // Eyewear and footwear
  ['rayban; ray ban; oakley', '', 'anteojos de sol sunglasses'],
  ['crocs', '', 'zuecos clogs'],
];

export interface BrandLine {
  /** The line name's normalized words. */
  name: string[];
  /** Normalized maker names that may precede it. */
  makers: string[];
  /** The product type's words, as raw text (the classifier normalizes them). */
  product: string;
}

/** The lexicon with its names normalized by `normalize` (the classifier's own normalization). */
export function brandLines(normalize: (text: string) => string[]): BrandLine[] {
  const out: BrandLine[] = [];
  for (const [names, maker, product] of lines) {
    const makers = maker.split(';').flatMap((m) => normalize(m));
    for (const n of names.split(';')) {
      const name = normalize(n);
      if (name.length) out.push({ name, makers, product });
    }
  }
  return out;
}
