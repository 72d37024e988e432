// Phone prefix -> IANA zone data for phone-timezone.ts. Hand-curated; see the
// header there for what is in here and why it is not a dependency.
//
// Sources: calling codes are ITU-T E.164 assignments; the zone for each is
// the country's own tzdata zone (zone.tab). Where tzdata lists several zones
// that keep identical clocks today (Germany/Busingen, Malaysia, Argentina,
// Uzbekistan, UK crown dependencies, ...) only the main one is named. US and
// Canadian area codes come from nanp-area-codes.ts (state or province first,
// zones from it; see there for the sources). libphonenumber's own timezone
// map is no reference for them: it put 689, Orlando, on Chicago time.

import { nanpAreaCodes } from './nanp-area-codes.js';

/** Calling code -> zone, for countries whose numbers all share one clock. */
export const SINGLE_ZONE_COUNTRIES: Record<string, string> = {
  // Europe
  30: 'Europe/Athens', 31: 'Europe/Amsterdam', 32: 'Europe/Brussels', 33: 'Europe/Paris',
  36: 'Europe/Budapest', 39: 'Europe/Rome', 40: 'Europe/Bucharest', 41: 'Europe/Zurich',
  43: 'Europe/Vienna', 44: 'Europe/London', 45: 'Europe/Copenhagen', 46: 'Europe/Stockholm',
  47: 'Europe/Oslo', 48: 'Europe/Warsaw', 49: 'Europe/Berlin', 298: 'Atlantic/Faroe',
  350: 'Europe/Gibraltar', 352: 'Europe/Luxembourg', 353: 'Europe/Dublin', 354: 'Atlantic/Reykjavik',
  355: 'Europe/Tirane', 356: 'Europe/Malta', 357: 'Asia/Nicosia', 358: 'Europe/Helsinki',
  359: 'Europe/Sofia', 370: 'Europe/Vilnius', 371: 'Europe/Riga', 372: 'Europe/Tallinn',
  373: 'Europe/Chisinau', 374: 'Asia/Yerevan', 375: 'Europe/Minsk', 376: 'Europe/Andorra',
  377: 'Europe/Monaco', 378: 'Europe/San_Marino', 380: 'Europe/Kyiv', 381: 'Europe/Belgrade',
  382: 'Europe/Podgorica', 383: 'Europe/Belgrade', 385: 'Europe/Zagreb', 386: 'Europe/Ljubljana',
  387: 'Europe/Sarajevo', 389: 'Europe/Skopje', 420: 'Europe/Prague', 421: 'Europe/Bratislava',
  423: 'Europe/Vaduz', 90: 'Europe/Istanbul',
  // Africa
  20: 'Africa/Cairo', 27: 'Africa/Johannesburg', 211: 'Africa/Juba', 212: 'Africa/Casablanca',
  213: 'Africa/Algiers', 216: 'Africa/Tunis', 218: 'Africa/Tripoli', 220: 'Africa/Banjul',
  221: 'Africa/Dakar', 222: 'Africa/Nouakchott', 223: 'Africa/Bamako', 224: 'Africa/Conakry',
  225: 'Africa/Abidjan', 226: 'Africa/Ouagadougou', 227: 'Africa/Niamey', 228: 'Africa/Lome',
  229: 'Africa/Porto-Novo', 230: 'Indian/Mauritius', 231: 'Africa/Monrovia', 232: 'Africa/Freetown',
  233: 'Africa/Accra', 234: 'Africa/Lagos', 235: 'Africa/Ndjamena', 236: 'Africa/Bangui',
  237: 'Africa/Douala', 238: 'Atlantic/Cape_Verde', 239: 'Africa/Sao_Tome', 240: 'Africa/Malabo',
  241: 'Africa/Libreville', 242: 'Africa/Brazzaville', 244: 'Africa/Luanda', 245: 'Africa/Bissau',
  246: 'Indian/Chagos', 247: 'Atlantic/St_Helena', 248: 'Indian/Mahe', 249: 'Africa/Khartoum',
  250: 'Africa/Kigali', 251: 'Africa/Addis_Ababa', 252: 'Africa/Mogadishu', 253: 'Africa/Djibouti',
  254: 'Africa/Nairobi', 255: 'Africa/Dar_es_Salaam', 256: 'Africa/Kampala', 257: 'Africa/Bujumbura',
  258: 'Africa/Maputo', 260: 'Africa/Lusaka', 261: 'Indian/Antananarivo', 263: 'Africa/Harare',
  264: 'Africa/Windhoek', 265: 'Africa/Blantyre', 266: 'Africa/Maseru', 267: 'Africa/Gaborone',
  268: 'Africa/Mbabane', 269: 'Indian/Comoro', 290: 'Atlantic/St_Helena', 291: 'Africa/Asmara',
  // Americas (outside NANP)
  51: 'America/Lima', 53: 'America/Havana', 54: 'America/Argentina/Buenos_Aires', 57: 'America/Bogota',
  58: 'America/Caracas', 297: 'America/Aruba', 500: 'Atlantic/Stanley', 501: 'America/Belize',
  502: 'America/Guatemala', 503: 'America/El_Salvador', 504: 'America/Tegucigalpa',
  505: 'America/Managua', 506: 'America/Costa_Rica', 507: 'America/Panama', 508: 'America/Miquelon',
  509: 'America/Port-au-Prince', 590: 'America/Guadeloupe', 591: 'America/La_Paz',
  592: 'America/Guyana', 594: 'America/Cayenne', 595: 'America/Asuncion', 596: 'America/Martinique',
  597: 'America/Paramaribo', 598: 'America/Montevideo', 599: 'America/Curacao',
  // Asia
  60: 'Asia/Kuala_Lumpur', 63: 'Asia/Manila', 65: 'Asia/Singapore', 66: 'Asia/Bangkok',
  81: 'Asia/Tokyo', 82: 'Asia/Seoul', 84: 'Asia/Ho_Chi_Minh', 86: 'Asia/Shanghai', 91: 'Asia/Kolkata',
  92: 'Asia/Karachi', 93: 'Asia/Kabul', 94: 'Asia/Colombo', 95: 'Asia/Yangon', 98: 'Asia/Tehran',
  850: 'Asia/Pyongyang', 852: 'Asia/Hong_Kong', 853: 'Asia/Macau', 855: 'Asia/Phnom_Penh',
  856: 'Asia/Vientiane', 880: 'Asia/Dhaka', 886: 'Asia/Taipei', 960: 'Indian/Maldives',
  961: 'Asia/Beirut', 962: 'Asia/Amman', 963: 'Asia/Damascus', 964: 'Asia/Baghdad', 965: 'Asia/Kuwait',
  966: 'Asia/Riyadh', 967: 'Asia/Aden', 968: 'Asia/Muscat', 971: 'Asia/Dubai', 972: 'Asia/Jerusalem',
  973: 'Asia/Bahrain', 974: 'Asia/Qatar', 975: 'Asia/Thimphu', 977: 'Asia/Kathmandu',
  992: 'Asia/Dushanbe', 993: 'Asia/Ashgabat', 994: 'Asia/Baku', 995: 'Asia/Tbilisi',
  996: 'Asia/Bishkek', 998: 'Asia/Tashkent',
  // Oceania
  670: 'Asia/Dili', 672: 'Pacific/Norfolk', 673: 'Asia/Brunei', 674: 'Pacific/Nauru',
  676: 'Pacific/Tongatapu', 677: 'Pacific/Guadalcanal', 678: 'Pacific/Efate', 679: 'Pacific/Fiji',
  680: 'Pacific/Palau', 681: 'Pacific/Wallis', 682: 'Pacific/Rarotonga', 683: 'Pacific/Niue',
  685: 'Pacific/Apia', 687: 'Pacific/Noumea', 688: 'Pacific/Funafuti', 690: 'Pacific/Fakaofo',
  692: 'Pacific/Majuro',
};

const RUSSIA =
  'Europe/Kaliningrad Europe/Moscow Europe/Samara Asia/Yekaterinburg Asia/Omsk Asia/Novosibirsk ' +
  'Asia/Krasnoyarsk Asia/Irkutsk Asia/Yakutsk Asia/Vladivostok Asia/Magadan Asia/Kamchatka';
const KAZAKHSTAN = 'Asia/Almaty Asia/Aqtobe';
// A +1 number whose area code is not in NANP_AREA_CODES (new, toll-free,
// non-geographic): the clocks of the US and Canada, Newfoundland to Hawaii,
// Alaska included. The Caribbean keeps Atlantic or Eastern time, inside that
// span anyway; Guam, Saipan and American Samoa have area codes of their own
// (671, 670, 684) and are left out: with them, a 08:00-21:00 window held in
// every zone 1.5 to 2.5 hours a day; without them, 5.5 to 6.5 hours.
const NANP_ALL =
  'America/St_Johns America/Halifax America/New_York America/Chicago America/Regina ' +
  'America/Denver America/Phoenix America/Los_Angeles America/Anchorage America/Adak Pacific/Honolulu';

/**
 * Prefix (calling code + leading national digits) -> space-separated zones.
 * Calling-code keys list every clock the country keeps, one zone per distinct
 * set of rules; longer keys narrow that down where the numbering plan is
 * geographic and well known. Mobile ranges are never pinned: they roam.
 */
export const MULTI_ZONE_PREFIXES: Record<string, string> = {
  1: NANP_ALL,
  7: `${RUSSIA} ${KAZAKHSTAN}`, 73: RUSSIA, 74: RUSSIA, 78: RUSSIA, 79: RUSSIA, 76: KAZAKHSTAN, 77: KAZAKHSTAN,
  7495: 'Europe/Moscow', 7499: 'Europe/Moscow', 7812: 'Europe/Moscow',
  34: 'Europe/Madrid Atlantic/Canary',
  // Spanish geographic numbers: 9[1-8]x; the Canaries are 822/828/922/928.
  3491: 'Europe/Madrid', 3492: 'Europe/Madrid', 3493: 'Europe/Madrid', 3494: 'Europe/Madrid',
  3495: 'Europe/Madrid', 3496: 'Europe/Madrid', 3497: 'Europe/Madrid', 3498: 'Europe/Madrid',
  34822: 'Atlantic/Canary', 34828: 'Atlantic/Canary', 34922: 'Atlantic/Canary', 34928: 'Atlantic/Canary',
  351: 'Europe/Lisbon Atlantic/Azores',
  // Portuguese landlines start with 2; the Azores are 292/295/296 (Madeira, 291, keeps Lisbon's clock).
  3512: 'Europe/Lisbon', 351292: 'Atlantic/Azores', 351295: 'Atlantic/Azores', 351296: 'Atlantic/Azores',
  52: 'America/Tijuana America/Hermosillo America/Mazatlan America/Ciudad_Juarez America/Chihuahua ' +
    'America/Ojinaga America/Matamoros America/Mexico_City America/Cancun',
  5255: 'America/Mexico_City', 5256: 'America/Mexico_City', 5233: 'America/Mexico_City', 5281: 'America/Monterrey',
  55: 'America/Noronha America/Sao_Paulo America/Manaus America/Rio_Branco',
  // DDD 11-55 are SP, RJ, ES, MG, PR, SC and RS, all on Brasilia time.
  551: 'America/Sao_Paulo', 552: 'America/Sao_Paulo', 553: 'America/Sao_Paulo', 554: 'America/Sao_Paulo', 555: 'America/Sao_Paulo',
  56: 'America/Santiago America/Punta_Arenas Pacific/Easter', 562: 'America/Santiago',
  61: 'Australia/Sydney Australia/Brisbane Australia/Adelaide Australia/Darwin Australia/Perth ' +
    'Australia/Eucla Australia/Lord_Howe Indian/Christmas Indian/Cocos',
  612: 'Australia/Sydney', 6126563: 'Australia/Lord_Howe', 613: 'Australia/Melbourne',
  62: 'Asia/Jakarta Asia/Makassar Asia/Jayapura', 6221: 'Asia/Jakarta',
  64: 'Pacific/Auckland Pacific/Chatham', 643: 'Pacific/Auckland', 644: 'Pacific/Auckland',
  646: 'Pacific/Auckland', 647: 'Pacific/Auckland', 649: 'Pacific/Auckland', 64330: 'Pacific/Chatham',
  90392: 'Asia/Famagusta', // Northern Cyprus keeps EU summer time; Turkey does not
  243: 'Africa/Kinshasa Africa/Lubumbashi',
  262: 'Indian/Reunion Indian/Mayotte', 262262: 'Indian/Reunion', 262269: 'Indian/Mayotte',
  299: 'America/Nuuk America/Scoresbysund America/Thule America/Danmarkshavn',
  593: 'America/Guayaquil Pacific/Galapagos',
  675: 'Pacific/Port_Moresby Pacific/Bougainville',
  686: 'Pacific/Tarawa Pacific/Kanton Pacific/Kiritimati',
  689: 'Pacific/Tahiti Pacific/Marquesas Pacific/Gambier',
  691: 'Pacific/Chuuk Pacific/Pohnpei Pacific/Kosrae',
  970: 'Asia/Gaza Asia/Hebron',
  976: 'Asia/Ulaanbaatar Asia/Hovd',
};

/**
 * NANP area code lists keyed by the zone(s) they lie in, space-separated
 * and sorted. The US and Canada come from nanp-area-codes.ts, where each
 * code is held to the state or province it serves; the rest of the NANP
 * (the Caribbean, Bermuda and the US territories) is one zone per code.
 */
export const NANP_AREA_CODES: Record<string, string> = {
  'America/Santo_Domingo': '809 829 849', 'America/Jamaica': '658 876', 'America/Puerto_Rico': '787 939',
  'America/Anguilla': '264', 'America/Antigua': '268', 'America/Barbados': '246', 'America/Cayman': '345',
  'America/Dominica': '767', 'America/Grand_Turk': '649', 'America/Grenada': '473',
  'America/Lower_Princes': '721', 'America/Montserrat': '664', 'America/Nassau': '242',
  'America/Port_of_Spain': '868', 'America/St_Kitts': '869', 'America/St_Lucia': '758',
  'America/St_Thomas': '340', 'America/St_Vincent': '784', 'America/Tortola': '284',
  'Atlantic/Bermuda': '441', 'Pacific/Guam': '671', 'Pacific/Pago_Pago': '684', 'Pacific/Saipan': '670',
};
for (const [npa, { zones }] of nanpAreaCodes()) {
  const key = zones.join(' ');
  NANP_AREA_CODES[key] = NANP_AREA_CODES[key] ? `${NANP_AREA_CODES[key]} ${npa}` : npa;
}
