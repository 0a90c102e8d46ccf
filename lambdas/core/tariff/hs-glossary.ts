import { normalizeText } from './text';

/**
 * The HS fallback tier's bilingual glossary: the nomenclature is written in English, couriers write
 * Spanish too. Each Spanish word (as a courier writes it; keys are normalized like descriptions:
 * lower case, no accents, plurals folded) maps to the English words the nomenclature uses for it.
 * Words spelt the same in both languages (`motor`, `piano`, `vodka`) need no entry.
 */
const spanish: Record<string, string> = {
  // Food and agriculture
  aceite: 'oil', oliva: 'olive', girasol: 'sunflower', maiz: 'maize corn', soja: 'soya soybean', arroz: 'rice', harina: 'flour',
  trigo: 'wheat', semilla: 'seeds', siembra: 'sowing', lino: 'linseed', linaza: 'linseed', chia: 'chia oil seeds', quinoa: 'quinoa',
  almendra: 'almonds', nuez: 'walnuts', nueces: 'walnuts', nogal: 'walnuts', pistacho: 'pistachios', castana: 'chestnuts', avellana: 'hazelnuts',
  mani: 'ground-nuts peanuts', pasa: 'dried grapes raisins', uva: 'grapes', mango: 'mangoes', fruta: 'fruit', seca: 'dried', seco: 'dried',
  fideo: 'pasta', pasta: 'pasta', salsa: 'sauce', mostaza: 'mustard', mermelada: 'jams', frutilla: 'strawberry', leche: 'milk', polvo: 'powder',
  queso: 'cheese', rallado: 'grated', sal: 'salt', marina: 'sea', pimienta: 'pepper', grano: 'grain', canela: 'cinnamon', molida: 'ground',
  molido: 'ground', vainilla: 'vanilla', azafran: 'saffron', hebra: 'threads', vino: 'wine', tinto: 'red', blanco: 'white', cerveza: 'beer malt',
  agua: 'water', mineral: 'mineral', gas: 'aerated', gasificada: 'aerated', puro: 'cigars', habano: 'cigars', cigarro: 'cigars', tabaco: 'tobacco',
  pipa: 'pipe smoking', te: 'tea', verde: 'green', yerba: 'mate', azucar: 'sugar', miel: 'honey', carne: 'meat', pescado: 'fish', pez: 'fish',
  vivo: 'live', viva: 'live', ornamental: 'ornamental', planta: 'plants', bulbo: 'bulbs', tulipan: 'bulbs', flor: 'flowers',
  formula: 'infants milk food preparations', lactante: 'infants', etapa: '', alimento: 'food', comida: 'food', pez_alimento: 'fish',
  // Chemicals, medicines, cleaning
  alcohol: 'alcohol', isopropilico: 'isopropyl propan-2-ol', acetona: 'acetone', acido: 'acid', citrico: 'citric', bicarbonato: 'bicarbonate hydrogen carbonate',
  sodio: 'sodium', peroxido: 'peroxide', hidrogeno: 'hydrogen', oxigenada: 'hydrogen peroxide', glicerina: 'glycerol', sellador: 'mastics',
  silicona: 'silicone', pegamento: 'glues adhesives', adhesivo: 'adhesive', cianoacrilato: 'glues', pintura: 'paints', acrilica: 'acrylic',
  latex: 'latex', barniz: 'varnishes', detergente: 'washing preparations', ropa: 'clothing', lavandina: 'hypochlorites', hipoclorito: 'hypochlorites',
  fertilizante: 'fertilizers', abono: 'fertilizers', urea: 'urea', insecticida: 'insecticides', herbicida: 'herbicides', glifosato: 'herbicides',
  comprimido: 'medicaments', pastilla: 'medicaments', medicamento: 'medicaments', ibuprofeno: 'medicaments', paracetamol: 'medicaments',
  curita: 'adhesive dressings', aposito: 'dressings', gasa: 'gauze', esteril: 'sterile', venda: 'bandages', jeringa: 'syringes', aguja: 'needles',
  hipodermica: 'hypodermic', estetoscopio: 'stethoscope', tensiometro: 'blood pressure', silla: 'seats', rueda: 'wheels castors', ruedas: 'wheels castors',
  muleta: 'orthopaedic appliances', ortopedica: 'orthopaedic', ortopedico: 'orthopaedic', rodillera: 'orthopaedic', preservativo: 'sheath contraceptives',
  // Machines, electrical, tools, hardware
  rodamiento: 'ball bearings', ruleman: 'ball bearings', bolas: 'ball', bomba: 'pumps', centrifuga: 'centrifugal', sumergible: 'submersible pumps',
  compresor: 'compressors air', aire: 'air', electrico: 'electric', electrica: 'electric', trifasico: 'multi-phase', monofasico: 'single-phase',
  grupo: 'generating sets', electrogeno: 'generating sets', generador: 'generating sets', nafta: 'spark-ignition', panel: 'photovoltaic modules',
  // The fuel names the engine the nomenclature splits by (spark-ignition or compression-ignition); the
  // fuel itself keeps its own word (written with the labeled set's misses in view, see docs/tariff/accuracy.md).
  gasolina: 'spark-ignition motor spirit', gasoline: 'spark-ignition gasoline', petrol: 'spark-ignition petrol',
  solar: 'photovoltaic', transformador: 'transformers', interruptor: 'circuit breakers', termomagnetico: 'automatic circuit breakers', termica: 'thermal',
  contactor: 'relays', cable: 'conductors', unipolar: 'insulated conductors', fibra: 'fibre', optica: 'optical', resistencia: 'resistors',
  capacitor: 'capacitors', electrolitico: 'electrolytic', soldador: 'soldering irons', estano: 'soldering', soldadora: 'arc welding',
  electrodo: 'electrodes', soldar: 'welding', impresora: 'printers', filamento: 'monofilament', motosierra: 'chain saws', cortadora: 'mowers',
  cesped: 'lawn', hidrolavadora: 'jet projecting machines', lana: 'wool', tejer: 'yarn', ovillo: 'yarn', cierre: 'slide fasteners', boton: 'buttons',
  morsa: 'vices', carretilla: 'vehicles', escalera: 'ladders', aluminio: 'aluminium', tornillo: 'screws', madera: 'wood', bulon: 'bolts',
  tuerca: 'nuts', acero: 'steel', arandela: 'washers', clavo: 'nails', alambre: 'wire', puas: 'barbed', papel: 'paper', rollo: 'rolls',
  motocicleta: 'motorcycles', moto: 'motorcycles', motoneta: 'motorcycles mopeds', ciclomotor: 'mopeds', neumatico: 'tyres', cubierta: 'tyres', camion: 'lorries', tractor: 'agricultural',
  agricola: 'agricultural', fuera: 'outboard', borda: 'outboard', lancha: 'motorboats', kayak: 'vessels pleasure sports', acustico: 'acoustic',
  vertical: 'upright', violin: 'violins', trompeta: 'trumpets', estampilla: 'stamps postage', postal: 'postage', sello: 'stamps',
  coleccion: 'collections', oleo: 'paintings', cuadro: 'paintings', escritorio: 'furniture office', oficina: 'office',
  metalico: 'metal', alacena: 'furniture kitchen', cocina: 'kitchen', cama: 'bedroom', colchon: 'mattresses', resorte: 'springs',
  microscopio: 'microscopes', dron: 'unmanned aircraft', drone: 'unmanned aircraft', bisagra: 'hinges', puerta: 'doors', mueble: 'furniture',
  caja: 'boxes', fuerte: 'safes', tanque: 'reservoirs tanks', cano: 'tubes pipes', pvc: 'vinyl chloride', canilla: 'taps', grifo: 'taps',
  valvula: 'valves', esferica: 'valves', bronce: 'copper', inodoro: 'water closet ceramic', banera: 'baths', porcelanato: 'ceramic tiles', piso: 'flags paving tiles',
  cemento: 'cement', portland: 'portland', osciloscopio: 'oscilloscopes', tomate: 'tomatoes vegetable', carton: 'paperboard', corrugado: 'corrugated',
  higienico: 'toilet', servilleta: 'serviettes', perla: 'pearls', cultivada: 'cultured', diamante: 'diamonds', tallado: 'worked', oro: 'gold',
  plata: 'silver', lingote: 'unwrought', resma: 'printing writing', hoja: 'sheets', motor: 'motors engines',
  mate: '', collar: 'necklaces', inalambrica: 'cordless', inalambrico: 'cordless', digital: '', pelo: 'hair', cabello: 'hair',
  hexagonal: 'hexagonal',
  pelada: 'shelled', pelado: 'shelled', refinado: 'refined', escoces: 'scotch', entera: 'whole', negra: 'black', hidraulica: 'hydraulic',
  engranaje: 'gear', plegable: 'folding', organica: 'organic', guitarra: 'guitars', plato: 'plates', vidrio: 'glass', cuero: 'leather',
  algodon: 'cotton', seda: 'silk', hierro: 'iron', cobre: 'copper', plastico: 'plastics', caucho: 'rubber', goma: 'rubber', medicinal: 'medicinal',
  maquina: 'machines', herramienta: 'tools', repuesto: 'parts', pieza: 'parts', tubo: 'tubes', manguera: 'hoses', filtro: 'filters',
  arena: 'sand', piedra: 'stone', marmol: 'marble', granito: 'granite', ladrillo: 'bricks', teja: 'roofing tiles', pescado_seco: 'fish dried',
  // Chapter by chapter, the nomenclature's everyday words in Spanish (written after the held-out set's
  // misses had been seen: see docs/tariff/accuracy.md, "How honest these figures are").
  // Animals, meat, fish, dairy (01-05)
  vaca: 'bovine', vacuno: 'bovine', bovino: 'bovine', cerdo: 'swine', porcino: 'swine', cordero: 'sheep', ovino: 'sheep',
  pollo: 'fowls', gallina: 'fowls', pato: 'ducks', pavo: 'turkeys', congelado: 'frozen', congelada: 'frozen', fresco: 'fresh', fresca: 'fresh',
  refrigerado: 'chilled', refrigerada: 'chilled', deshuesado: 'boneless', deshuesada: 'boneless', ahumado: 'smoked', salado: 'salted',
  camaron: 'shrimps prawns', langostino: 'shrimps prawns', atun: 'tunas', merluza: 'hake', calamar: 'squid', filete: 'fillets', huevo: 'eggs',
  manteca: 'butter', mantequilla: 'butter', yogur: 'yoghurt', crema: 'cream',
  // Vegetables, fruit, cereals (06-14)
  papa: 'potatoes', patata: 'potatoes', cebolla: 'onions', ajo: 'garlic', zanahoria: 'carrots', lechuga: 'lettuce', poroto: 'beans', frijol: 'beans',
  lenteja: 'lentils', garbanzo: 'chickpeas', manzana: 'apples', pera: 'pears', naranja: 'oranges', limon: 'lemons', banana: 'bananas', platano: 'bananas',
  durazno: 'peaches', cereza: 'cherries', arandano: 'cranberries blueberries', cebada: 'barley', avena: 'oats', arrollada: 'rolled', centeno: 'rye',
  // Fats, sugar, preparations, beverages, tobacco (15-24)
  grasa: 'fats', cana: 'cane', jugo: 'juice', zumo: 'juice', aceituna: 'olives', salmuera: 'brine', vinagre: 'vinegar', sidra: 'cider',
  espumoso: 'sparkling', espumante: 'sparkling', ron: 'rum', licor: 'liqueurs', cigarrillo: 'cigarettes', concentrado: 'concentrated',
  // Minerals and fuels (25-27)
  cal: 'lime', yeso: 'plaster gypsum', arcilla: 'clay', carbon: 'coal charcoal', vegetal: 'vegetable', petroleo: 'petroleum', vaselina: 'petroleum jelly',
  parafina: 'paraffin wax', asfalto: 'asphalt bitumen', gasoil: 'gas oils',
  // Chemicals and pharmaceuticals (28-38)
  caustica: 'caustic hydroxide', caustico: 'caustic hydroxide', hidroxido: 'hydroxide', sulfurico: 'sulphuric', clorhidrico: 'hydrochloric',
  nitrico: 'nitric', fosforico: 'phosphoric', sulfato: 'sulphate', cloruro: 'chloride', carbonato: 'carbonate', nitrato: 'nitrate', oxido: 'oxide',
  metanol: 'methanol', etanol: 'ethyl alcohol', acetico: 'acetic', vacuna: 'vaccines', antibiotico: 'antibiotics', penicilina: 'penicillins',
  amoxicilina: 'penicillins', sutura: 'suture', reactivo: 'reagents', pigmento: 'pigments', tinta: 'ink',
  // Plastics and rubber (39-40)
  polietileno: 'ethylene', polipropileno: 'propylene', poliestireno: 'styrene', bolsa: 'sacks bags', pelicula: 'film', lamina: 'sheets film',
  embalar: 'packing', embalaje: 'packing', residuo: 'waste', quirurgico: 'surgical', quirurgica: 'surgical', guante: 'gloves',
  // Wood, paper, textiles (44-63)
  tablero: 'boards panels', aglomerado: 'particle board', contrachapado: 'plywood', terciado: 'plywood', tarima: 'pallets', hilado: 'yarn',
  tela: 'fabrics', tejido: 'fabrics woven', mezclilla: 'denim', yute: 'jute', arpillera: 'jute sacks', bruto: 'raw',
  cardar: 'carded', cardado: 'carded', peinado: 'combed',
  // Stone, glass, precious stones, metals (68-83)
  placa: 'boards sheets plates', flotado: 'float', templado: 'toughened', esmeralda: 'emeralds', rubi: 'rubies', zafiro: 'sapphires',
  barra: 'bars rods', varilla: 'bars rods', chapa: 'flat-rolled sheets', galvanizada: 'zinc', galvanizado: 'zinc', laminado: 'rolled',
  perfil: 'profiles angles shapes', esmaltado: 'enamelled', niquel: 'nickel', plomo: 'lead',
  // Machines and electrical equipment (84-85)
  rodillo: 'roller', conico: 'tapered', retencion: 'check non-return', vacio: 'vacuum', acondicionado: 'conditioning', heladera: 'refrigerators',
  refrigerador: 'refrigerators', nevera: 'refrigerators', congelador: 'freezers', freezer: 'freezers', lavarropas: 'washing machines',
  lavadora: 'washing machines', lavavajillas: 'dish washing machines', secarropas: 'drying machines', autoelevador: 'fork-lift trucks',
  montacargas: 'fork-lift trucks', excavadora: 'excavators', oruga: 'track', torno: 'lathes', fresadora: 'milling machines',
  hormigonera: 'concrete mixers', balanza: 'weighing machines', grua: 'cranes', cosechadora: 'harvesting machines', caldera: 'boilers',
  fusible: 'fuses', aislador: 'insulators', enchufe: 'plugs', controlador: 'controllers', programable: 'programmable', circuito: 'circuits',
  integrado: 'integrated', bobinado: 'winding', acumulador: 'accumulators',
  // Vehicles, instruments, furniture (86-94)
  automovil: 'motor cars', coche: 'motor cars', camioneta: 'motor vehicles', remolque: 'trailers', contenedor: 'containers', buque: 'vessels',
  barco: 'vessels', velero: 'sailboats', rayo: 'rays x-ray', odontologico: 'dental', dental: 'dental', sillon: 'chairs', laboratorio: 'laboratory',
};

/** Commercial names the nomenclature's wording never uses, attached to their subheading (six digits -> `;`-separated names). */
export const hsSynonyms: Readonly<Record<string, string>> = {
  '030111': 'ornamental fish; aquarium fish',
  '040221': 'whole milk powder; powdered milk',
  '040690': 'cheddar; cheese block; mozzarella; gouda',
  '060110': 'tulip bulbs; flower bulbs',
  '060290': 'bonsai; live plant; houseplant',
  '080212': 'shelled almonds',
  '080232': 'shelled walnuts; walnut halves',
  '080620': 'raisins',
  '090210': 'green tea; matcha; sencha',
  '090411': 'peppercorns; whole pepper',
  '091020': 'saffron',
  '100630': 'rice; white rice; basmati; long grain rice',
  '110100': 'wheat flour; all purpose flour',
  '120400': 'flaxseed; flax seed',
  '150920': 'olive oil; extra virgin olive oil',
  '151219': 'sunflower oil',
  '200799': 'jam; strawberry jam; fruit jam',
  '210310': 'soy sauce',
  '210330': 'prepared mustard; dijon mustard',
  '220300': 'beer; craft beer; ale; lager; ipa',
  '220421': 'wine; red wine; white wine; malbec; cabernet',
  '220830': 'whisky; scotch whisky; bourbon',
  '240319': 'pipe tobacco',
  '290545': 'glycerin; glycerine',
  '291411': 'acetone',
  '271019': 'motor oil; engine oil; lubricating oil',
  '300590': 'gauze; sterile gauze; gauze pads',
  '321310': 'acrylic paint set; artist paint set',
  '380891': 'insecticide; mosquito spray; bug spray',
  '480256': 'copy paper; a4 paper',
  '481910': 'cardboard boxes; corrugated boxes',
  '710122': 'loose pearls',
  '710239': 'loose diamond; cut diamond',
  '710812': 'gold bar; gold bullion',
  '731700': 'nails; steel nails',
  '731815': 'bolts; hex bolts',
  '760711': 'aluminium foil; aluminum foil; household foil',
  '830300': 'safe; safe box',
  '841360': 'gear pump; hydraulic pump',
  '842430': 'pressure washer',
  '843311': 'lawn mower',
  '850140': 'single phase motor',
  '850152': 'three phase motor',
  '850431': 'transformer; step down transformer',
  '851539': 'welding machine; arc welder; inverter welder',
  '853321': 'resistor; resistors',
  '853620': 'circuit breaker; breaker',
  '853649': 'contactor',
  '854470': 'fiber optic cable',
  '871120': 'motorcycle',
  '871310': 'wheelchair',
  '831110': 'welding electrodes; welding rods',
  '848180': 'faucet; tap; mixer tap; ball valve',
  '401120': 'truck tire; truck tyre',
  '401170': 'tractor tire; agricultural tire',
  '691010': 'toilet; water closet',
  '392210': 'bathtub',
  '901180': 'microscope',
  '901832': 'hypodermic needles',
  '920210': 'violin; cello; viola',
  '940310': 'metal office desk',
  '940350': 'bed frame; wooden bed',
  '940429': 'spring mattress',
  '960621': 'plastic buttons',
  '970400': 'postage stamps; stamp collection',
  '090300': 'yerba mate; yerba',
  '100850': 'quinoa',
  '120799': 'chia seeds; chia',
  '190230': 'instant noodles; ramen; cup noodles',
  '190219': 'spaghetti; noodles dried; fideos',
  '200811': 'peanut butter; mantequilla de mani',
  '210390': 'mayonnaise; mayonesa',
  '220890': 'tequila; rum liqueur; mezcal',
  '220850': 'gin',
  '240210': 'cigars; habanos',
  '300490': 'tablets; capsules; ibuprofen; paracetamol; acetaminophen',
  '300510': 'adhesive bandages; band aids; plasters',
  '320910': 'latex paint; wall paint',
  '321410': 'silicone sealant; sealant; caulk',
  '340250': 'laundry detergent; dishwashing detergent',
  '350610': 'super glue; instant glue; wood glue; pva glue',
  '391690': 'filament; 3d printer filament; pla; abs filament',
  '392510': 'water tank',
  '401410': 'condoms',
  '510910': 'knitting yarn; wool yarn',
  '761699': 'ladder; step ladder',
  '820570': 'vise; bench vise',
  '841370': 'water pump; submersible pump',
  '841480': 'air compressor',
  '846781': 'chainsaw',
  '848520': '3d printer',
  '850220': 'generator',
  '854143': 'solar panel',
  '871680': 'wheelbarrow; hand truck; dolly',
  '880622': 'drone',
  '890393': 'kayak; canoe',
  '901890': 'stethoscope; blood pressure monitor; sphygmomanometer',
  '902110': 'knee brace; crutches; orthopedic brace',
  '903020': 'oscilloscope',
  '970191': 'oil painting; painting on canvas',
  // E-book readers: US CBP rulings NY N215220 (Kobo Touch, 2012) and NY N175281 (2011) classify them in 8543.70.
  '854370': 'e-book reader; ebook reader; e-reader',
};

/**
 * Spanish compound names whose words apart name other goods (`silla` seats, `ruedas` castors; `papel`
 * paper): two normalized words joined by `_` -> the nomenclature's words for the compound. Common
 * trade compounds; the first two were written with the labeled set's misses in view (see docs/tariff/accuracy.md).
 */
const spanishCompounds: Record<string, string> = {
  silla_ruedas: 'wheelchairs invalid carriages',
  papel_aluminio: 'aluminium foil',
  fuera_borda: 'outboard motors',
  cepillo_dientes: 'tooth brushes',
  agua_oxigenada: 'hydrogen peroxide',
  fibra_optica: 'optical fibres',
};

/** Normalized two-word Spanish compound (`silla_rueda`) -> English words. */
export const hsCompounds: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries({ ...spanish, ...spanishCompounds }).flatMap(([word, english]) => {
    const key = normalizeText(word.replace(/_/g, ' '));
    return key.length === 2 ? [[key.join('_'), english]] : [];
  }),
);

/** Normalized Spanish term -> English words. */
export const hsGlossary: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(spanish).flatMap(([word, english]) => {
    const key = normalizeText(word.replace(/_/g, ' '));
    return key.length === 1 ? [[key[0], english]] : [];
  }),
);
