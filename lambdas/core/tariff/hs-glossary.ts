import { normalizeText } from './classifier';

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
  vivo: 'live', viva: 'live', ornamental: 'ornamental', planta: 'plants', bulbo: 'bulbs', tulipan: 'bulbs', flor: 'flowers', bebe: 'infants',
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
  solar: 'photovoltaic', transformador: 'transformers', interruptor: 'circuit breakers', termomagnetico: 'automatic circuit breakers', termica: 'circuit breakers',
  contactor: 'relays', cable: 'conductors', unipolar: 'insulated conductors', fibra: 'fibre', optica: 'optical', resistencia: 'resistors',
  capacitor: 'capacitors', electrolitico: 'electrolytic', soldador: 'soldering irons', estano: 'soldering', soldadora: 'arc welding',
  electrodo: 'electrodes', soldar: 'welding', impresora: 'printers', filamento: 'monofilament', motosierra: 'chain saws', cortadora: 'mowers',
  cesped: 'lawn', hidrolavadora: 'jet projecting machines', lana: 'wool', tejer: 'yarn', ovillo: 'yarn', cierre: 'slide fasteners', boton: 'buttons',
  morsa: 'vices', carretilla: 'vehicles', escalera: 'ladders', aluminio: 'aluminium', tornillo: 'screws', madera: 'wood', bulon: 'bolts',
  tuerca: 'nuts', acero: 'steel', arandela: 'washers', clavo: 'nails', alambre: 'wire', puas: 'barbed', papel: 'paper', rollo: 'rolls',
  motocicleta: 'motorcycles', moto: 'motorcycles', neumatico: 'tyres', cubierta: 'tyres', camion: 'lorries', tractor: 'agricultural',
  agricola: 'agricultural', fuera: 'outboard', borda: 'outboard', lancha: 'motorboats', kayak: 'vessels pleasure sports', acustico: 'acoustic',
  vertical: 'upright', violin: 'violins', trompeta: 'trumpets', estampilla: 'stamps postage', postal: 'postage', sello: 'stamps',
  coleccion: 'collections', pintura_oleo: 'paintings', oleo: 'paintings', cuadro: 'paintings', escritorio: 'furniture office', oficina: 'office',
  metalico: 'metal', alacena: 'furniture kitchen', cocina: 'kitchen', cama: 'bedroom', colchon: 'mattresses', resorte: 'springs',
  microscopio: 'microscopes', dron: 'unmanned aircraft', drone: 'unmanned aircraft', bisagra: 'hinges', puerta: 'doors', mueble: 'furniture',
  caja: 'boxes', fuerte: 'safes', tanque: 'reservoirs tanks', cano: 'tubes pipes', pvc: 'vinyl chloride', canilla: 'taps', grifo: 'taps',
  valvula: 'valves', esferica: 'valves', bronce: 'copper', inodoro: 'water closet ceramic', banera: 'baths', porcelanato: 'ceramic tiles', piso: 'flags paving tiles',
  cemento: 'cement', portland: 'portland', osciloscopio: 'oscilloscopes', tomate: 'tomatoes vegetable', carton: 'paperboard', corrugado: 'corrugated',
  higienico: 'toilet', servilleta: 'serviettes', perla: 'pearls', cultivada: 'cultured', diamante: 'diamonds', tallado: 'worked', oro: 'gold',
  plata: 'silver', lingote: 'unwrought', resma: 'printing writing', hoja: 'sheets', motor: 'motors engines',
};

/** Commercial names the nomenclature's wording never uses, attached to their subheading (six digits -> `;`-separated names). */
export const hsSynonyms: Readonly<Record<string, string>> = {
  '090300': 'yerba mate; yerba',
  '100850': 'quinoa',
  '120799': 'chia seeds; chia',
  '190230': 'instant noodles; ramen; cup noodles',
  '190219': 'spaghetti; noodles dried; fideos',
  '200811': 'peanut butter; mantequilla de mani',
  '210390': 'mayonnaise; mayonesa',
  '220890': 'tequila; rum liqueur; mezcal',
  '220850': 'gin',
  '240210': 'habanos; puros',
  '300490': 'tablets; capsules; ibuprofen; paracetamol; acetaminophen',
  '300510': 'adhesive bandages; band aids; plasters',
  '320910': 'latex paint; wall paint',
  '321410': 'silicone sealant; sealant; caulk',
  '340250': 'laundry detergent; dishwashing detergent',
  '350610': 'super glue; instant glue; wood glue; pva glue',
  '391690': 'filament; 3d printer filament; pla; abs filament',
  '392510': 'water tank',
  '401410': 'condoms',
  '482010': 'notebook',
  '510910': 'knitting yarn; wool yarn',
  '720000': '',
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
};

/** Normalized Spanish term -> English words. */
export const hsGlossary: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(spanish).flatMap(([word, english]) => {
    const key = normalizeText(word.replace(/_/g, ' '));
    return key.length === 1 ? [[key[0], english]] : [];
  }),
);
