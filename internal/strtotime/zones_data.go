// Code generated from PHP 8.2 (DateTimeZone::listAbbreviations, timezone_identifiers_list); DO NOT EDIT.

package strtotime

// abbrTable holds, for every abbreviation in timelib's timezonemap.h, the first
// entry listed for it: that is the one timelib_lookup_abbr picks when parsing.
var abbrTable = map[string]abbrEntry{
	"acdt": {true, 37800},
	"acst": {false, 34200},
	"addt": {true, -7200},
	"adt":  {true, -10800},
	"aedt": {true, 39600},
	"aest": {false, 36000},
	"ahdt": {true, -32400},
	"ahst": {false, -36000},
	"akdt": {true, -28800},
	"akst": {false, -32400},
	"amt":  {false, -13840},
	"apt":  {true, -10800},
	"ast":  {false, -14400},
	"awdt": {true, 32400},
	"awst": {false, 28800},
	"awt":  {true, -10800},
	"bdst": {true, 7200},
	"bdt":  {true, -36000},
	"bmt":  {false, -14309},
	"bst":  {true, 3600},
	"cast": {false, 34200},
	"cat":  {false, 7200},
	"cddt": {true, -14400},
	"cdt":  {true, -18000},
	"cemt": {true, 10800},
	"cest": {true, 7200},
	"cet":  {false, 3600},
	"cmt":  {false, -15408},
	"cpt":  {true, -18000},
	"cst":  {false, -21600},
	"cwt":  {true, -18000},
	"chst": {false, 36000},
	"dmt":  {false, -1521},
	"eat":  {false, 10800},
	"eddt": {true, -10800},
	"edt":  {true, -14400},
	"eest": {true, 10800},
	"eet":  {false, 7200},
	"emt":  {false, -26248},
	"ept":  {true, -14400},
	"est":  {false, -18000},
	"ewt":  {true, -14400},
	"ffmt": {false, -14660},
	"fmt":  {false, -4056},
	"gdt":  {true, 39600},
	"gmt":  {false, 0},
	"gst":  {false, 36000},
	"hdt":  {true, -34200},
	"hkst": {true, 32400},
	"hkt":  {false, 28800},
	"hmt":  {false, -19776},
	"hpt":  {true, -34200},
	"hst":  {false, -36000},
	"hwt":  {true, -34200},
	"iddt": {true, 14400},
	"idt":  {true, 10800},
	"imt":  {false, 25025},
	"ist":  {false, 7200},
	"jdt":  {true, 36000},
	"jmt":  {false, 8440},
	"jst":  {false, 32400},
	"kdt":  {true, 36000},
	"kmt":  {false, 5736},
	"kst":  {false, 30600},
	"lst":  {true, 9394},
	"mddt": {true, -18000},
	"mdst": {true, 16279},
	"mdt":  {true, -21600},
	"mest": {true, 7200},
	"met":  {false, 3600},
	"mmt":  {false, 9017},
	"mpt":  {true, -21600},
	"msd":  {true, 14400},
	"msk":  {false, 10800},
	"mst":  {false, -25200},
	"mwt":  {true, -21600},
	"nddt": {true, -5400},
	"ndt":  {true, -9052},
	"npt":  {true, -9000},
	"nst":  {false, -12600},
	"nwt":  {true, -9000},
	"nzdt": {true, 46800},
	"nzmt": {false, 41400},
	"nzst": {false, 43200},
	"pddt": {true, -21600},
	"pdt":  {true, -25200},
	"pkst": {true, 21600},
	"pkt":  {false, 18000},
	"plmt": {false, 25590},
	"pmt":  {false, -13236},
	"ppmt": {false, -17340},
	"ppt":  {true, -25200},
	"pst":  {false, -28800},
	"pwt":  {true, -25200},
	"qmt":  {false, -18840},
	"rmt":  {false, 5794},
	"sast": {false, 7200},
	"sdmt": {false, -16800},
	"sjmt": {false, -20173},
	"smt":  {false, -13884},
	"sst":  {false, -39600},
	"tbmt": {false, 10751},
	"tmt":  {false, 12344},
	"uct":  {false, 0},
	"utc":  {false, 0},
	"wast": {true, 7200},
	"wat":  {false, 3600},
	"wemt": {true, 7200},
	"west": {true, 3600},
	"wet":  {false, 0},
	"wib":  {false, 25200},
	"wita": {false, 28800},
	"wit":  {false, 32400},
	"wmt":  {false, 5040},
	"yddt": {true, -25200},
	"ydt":  {true, -28800},
	"ypt":  {true, -28800},
	"yst":  {false, -32400},
	"ywt":  {true, -28800},
	"a":    {false, 3600},
	"b":    {false, 7200},
	"c":    {false, 10800},
	"d":    {false, 14400},
	"e":    {false, 18000},
	"f":    {false, 21600},
	"g":    {false, 25200},
	"h":    {false, 28800},
	"i":    {false, 32400},
	"k":    {false, 36000},
	"l":    {false, 39600},
	"m":    {false, 43200},
	"n":    {false, -3600},
	"o":    {false, -7200},
	"p":    {false, -10800},
	"q":    {false, -14400},
	"r":    {false, -18000},
	"s":    {false, -21600},
	"t":    {false, -25200},
	"u":    {false, -28800},
	"v":    {false, -32400},
	"w":    {false, -36000},
	"x":    {false, -39600},
	"y":    {false, -43200},
	"z":    {false, 0},
}

// zoneIDs lists the timezone identifiers PHP's timezone database knows
// (timezone_identifiers_list(DateTimeZone::ALL_WITH_BC)).
const zoneIDs = `Africa/Abidjan Africa/Accra Africa/Addis_Ababa Africa/Algiers Africa/Asmara Africa/Asmera
Africa/Bamako Africa/Bangui Africa/Banjul Africa/Bissau Africa/Blantyre Africa/Brazzaville
Africa/Bujumbura Africa/Cairo Africa/Casablanca Africa/Ceuta Africa/Conakry Africa/Dakar
Africa/Dar_es_Salaam Africa/Djibouti Africa/Douala Africa/El_Aaiun Africa/Freetown
Africa/Gaborone Africa/Harare Africa/Johannesburg Africa/Juba Africa/Kampala
Africa/Khartoum Africa/Kigali Africa/Kinshasa Africa/Lagos Africa/Libreville Africa/Lome
Africa/Luanda Africa/Lubumbashi Africa/Lusaka Africa/Malabo Africa/Maputo Africa/Maseru
Africa/Mbabane Africa/Mogadishu Africa/Monrovia Africa/Nairobi Africa/Ndjamena
Africa/Niamey Africa/Nouakchott Africa/Ouagadougou Africa/Porto-Novo Africa/Sao_Tome
Africa/Timbuktu Africa/Tripoli Africa/Tunis Africa/Windhoek America/Adak America/Anchorage
America/Anguilla America/Antigua America/Araguaina America/Argentina/Buenos_Aires
America/Argentina/Catamarca America/Argentina/ComodRivadavia America/Argentina/Cordoba
America/Argentina/Jujuy America/Argentina/La_Rioja America/Argentina/Mendoza
America/Argentina/Rio_Gallegos America/Argentina/Salta America/Argentina/San_Juan
America/Argentina/San_Luis America/Argentina/Tucuman America/Argentina/Ushuaia
America/Aruba America/Asuncion America/Atikokan America/Atka America/Bahia
America/Bahia_Banderas America/Barbados America/Belem America/Belize America/Blanc-Sablon
America/Boa_Vista America/Bogota America/Boise America/Buenos_Aires America/Cambridge_Bay
America/Campo_Grande America/Cancun America/Caracas America/Catamarca America/Cayenne
America/Cayman America/Chicago America/Chihuahua America/Ciudad_Juarez
America/Coral_Harbour America/Cordoba America/Costa_Rica America/Coyhaique America/Creston
America/Cuiaba America/Curacao America/Danmarkshavn America/Dawson America/Dawson_Creek
America/Denver America/Detroit America/Dominica America/Edmonton America/Eirunepe
America/El_Salvador America/Ensenada America/Fort_Nelson America/Fort_Wayne
America/Fortaleza America/Glace_Bay America/Godthab America/Goose_Bay America/Grand_Turk
America/Grenada America/Guadeloupe America/Guatemala America/Guayaquil America/Guyana
America/Halifax America/Havana America/Hermosillo America/Indiana/Indianapolis
America/Indiana/Knox America/Indiana/Marengo America/Indiana/Petersburg
America/Indiana/Tell_City America/Indiana/Vevay America/Indiana/Vincennes
America/Indiana/Winamac America/Indianapolis America/Inuvik America/Iqaluit
America/Jamaica America/Jujuy America/Juneau America/Kentucky/Louisville
America/Kentucky/Monticello America/Knox_IN America/Kralendijk America/La_Paz America/Lima
America/Los_Angeles America/Louisville America/Lower_Princes America/Maceio
America/Managua America/Manaus America/Marigot America/Martinique America/Matamoros
America/Mazatlan America/Mendoza America/Menominee America/Merida America/Metlakatla
America/Mexico_City America/Miquelon America/Moncton America/Monterrey America/Montevideo
America/Montreal America/Montserrat America/Nassau America/New_York America/Nipigon
America/Nome America/Noronha America/North_Dakota/Beulah America/North_Dakota/Center
America/North_Dakota/New_Salem America/Nuuk America/Ojinaga America/Panama
America/Pangnirtung America/Paramaribo America/Phoenix America/Port-au-Prince
America/Port_of_Spain America/Porto_Acre America/Porto_Velho America/Puerto_Rico
America/Punta_Arenas America/Rainy_River America/Rankin_Inlet America/Recife
America/Regina America/Resolute America/Rio_Branco America/Rosario America/Santa_Isabel
America/Santarem America/Santiago America/Santo_Domingo America/Sao_Paulo
America/Scoresbysund America/Shiprock America/Sitka America/St_Barthelemy America/St_Johns
America/St_Kitts America/St_Lucia America/St_Thomas America/St_Vincent
America/Swift_Current America/Tegucigalpa America/Thule America/Thunder_Bay
America/Tijuana America/Toronto America/Tortola America/Vancouver America/Virgin
America/Whitehorse America/Winnipeg America/Yakutat America/Yellowknife Antarctica/Casey
Antarctica/Davis Antarctica/DumontDUrville Antarctica/Macquarie Antarctica/Mawson
Antarctica/McMurdo Antarctica/Palmer Antarctica/Rothera Antarctica/South_Pole
Antarctica/Syowa Antarctica/Troll Antarctica/Vostok Arctic/Longyearbyen Asia/Aden
Asia/Almaty Asia/Amman Asia/Anadyr Asia/Aqtau Asia/Aqtobe Asia/Ashgabat Asia/Ashkhabad
Asia/Atyrau Asia/Baghdad Asia/Bahrain Asia/Baku Asia/Bangkok Asia/Barnaul Asia/Beirut
Asia/Bishkek Asia/Brunei Asia/Calcutta Asia/Chita Asia/Choibalsan Asia/Chongqing
Asia/Chungking Asia/Colombo Asia/Dacca Asia/Damascus Asia/Dhaka Asia/Dili Asia/Dubai
Asia/Dushanbe Asia/Famagusta Asia/Gaza Asia/Harbin Asia/Hebron Asia/Ho_Chi_Minh
Asia/Hong_Kong Asia/Hovd Asia/Irkutsk Asia/Istanbul Asia/Jakarta Asia/Jayapura
Asia/Jerusalem Asia/Kabul Asia/Kamchatka Asia/Karachi Asia/Kashgar Asia/Kathmandu
Asia/Katmandu Asia/Khandyga Asia/Kolkata Asia/Krasnoyarsk Asia/Kuala_Lumpur Asia/Kuching
Asia/Kuwait Asia/Macao Asia/Macau Asia/Magadan Asia/Makassar Asia/Manila Asia/Muscat
Asia/Nicosia Asia/Novokuznetsk Asia/Novosibirsk Asia/Omsk Asia/Oral Asia/Phnom_Penh
Asia/Pontianak Asia/Pyongyang Asia/Qatar Asia/Qostanay Asia/Qyzylorda Asia/Rangoon
Asia/Riyadh Asia/Saigon Asia/Sakhalin Asia/Samarkand Asia/Seoul Asia/Shanghai
Asia/Singapore Asia/Srednekolymsk Asia/Taipei Asia/Tashkent Asia/Tbilisi Asia/Tehran
Asia/Tel_Aviv Asia/Thimbu Asia/Thimphu Asia/Tokyo Asia/Tomsk Asia/Ujung_Pandang
Asia/Ulaanbaatar Asia/Ulan_Bator Asia/Urumqi Asia/Ust-Nera Asia/Vientiane Asia/Vladivostok
Asia/Yakutsk Asia/Yangon Asia/Yekaterinburg Asia/Yerevan Atlantic/Azores Atlantic/Bermuda
Atlantic/Canary Atlantic/Cape_Verde Atlantic/Faeroe Atlantic/Faroe Atlantic/Jan_Mayen
Atlantic/Madeira Atlantic/Reykjavik Atlantic/South_Georgia Atlantic/St_Helena
Atlantic/Stanley Australia/ACT Australia/Adelaide Australia/Brisbane Australia/Broken_Hill
Australia/Canberra Australia/Currie Australia/Darwin Australia/Eucla Australia/Hobart
Australia/LHI Australia/Lindeman Australia/Lord_Howe Australia/Melbourne Australia/North
Australia/NSW Australia/Perth Australia/Queensland Australia/South Australia/Sydney
Australia/Tasmania Australia/Victoria Australia/West Australia/Yancowinna Brazil/Acre
Brazil/DeNoronha Brazil/East Brazil/West Canada/Atlantic Canada/Central Canada/Eastern
Canada/Mountain Canada/Newfoundland Canada/Pacific Canada/Saskatchewan Canada/Yukon CET
Chile/Continental Chile/EasterIsland CST6CDT Cuba EET Egypt Eire EST EST5EDT Etc/GMT
Etc/GMT+0 Etc/GMT+1 Etc/GMT+10 Etc/GMT+11 Etc/GMT+12 Etc/GMT+2 Etc/GMT+3 Etc/GMT+4
Etc/GMT+5 Etc/GMT+6 Etc/GMT+7 Etc/GMT+8 Etc/GMT+9 Etc/GMT-0 Etc/GMT-1 Etc/GMT-10
Etc/GMT-11 Etc/GMT-12 Etc/GMT-13 Etc/GMT-14 Etc/GMT-2 Etc/GMT-3 Etc/GMT-4 Etc/GMT-5
Etc/GMT-6 Etc/GMT-7 Etc/GMT-8 Etc/GMT-9 Etc/GMT0 Etc/Greenwich Etc/UCT Etc/Universal
Etc/UTC Etc/Zulu Europe/Amsterdam Europe/Andorra Europe/Astrakhan Europe/Athens
Europe/Belfast Europe/Belgrade Europe/Berlin Europe/Bratislava Europe/Brussels
Europe/Bucharest Europe/Budapest Europe/Busingen Europe/Chisinau Europe/Copenhagen
Europe/Dublin Europe/Gibraltar Europe/Guernsey Europe/Helsinki Europe/Isle_of_Man
Europe/Istanbul Europe/Jersey Europe/Kaliningrad Europe/Kiev Europe/Kirov Europe/Kyiv
Europe/Lisbon Europe/Ljubljana Europe/London Europe/Luxembourg Europe/Madrid Europe/Malta
Europe/Mariehamn Europe/Minsk Europe/Monaco Europe/Moscow Europe/Nicosia Europe/Oslo
Europe/Paris Europe/Podgorica Europe/Prague Europe/Riga Europe/Rome Europe/Samara
Europe/San_Marino Europe/Sarajevo Europe/Saratov Europe/Simferopol Europe/Skopje
Europe/Sofia Europe/Stockholm Europe/Tallinn Europe/Tirane Europe/Tiraspol
Europe/Ulyanovsk Europe/Uzhgorod Europe/Vaduz Europe/Vatican Europe/Vienna Europe/Vilnius
Europe/Volgograd Europe/Warsaw Europe/Zagreb Europe/Zaporozhye Europe/Zurich Factory GB
GB-Eire GMT GMT+0 GMT-0 GMT0 Greenwich Hongkong HST Iceland Indian/Antananarivo
Indian/Chagos Indian/Christmas Indian/Cocos Indian/Comoro Indian/Kerguelen Indian/Mahe
Indian/Maldives Indian/Mauritius Indian/Mayotte Indian/Reunion Iran Israel Jamaica Japan
Kwajalein Libya MET Mexico/BajaNorte Mexico/BajaSur Mexico/General MST MST7MDT Navajo NZ
NZ-CHAT Pacific/Apia Pacific/Auckland Pacific/Bougainville Pacific/Chatham Pacific/Chuuk
Pacific/Easter Pacific/Efate Pacific/Enderbury Pacific/Fakaofo Pacific/Fiji
Pacific/Funafuti Pacific/Galapagos Pacific/Gambier Pacific/Guadalcanal Pacific/Guam
Pacific/Honolulu Pacific/Johnston Pacific/Kanton Pacific/Kiritimati Pacific/Kosrae
Pacific/Kwajalein Pacific/Majuro Pacific/Marquesas Pacific/Midway Pacific/Nauru
Pacific/Niue Pacific/Norfolk Pacific/Noumea Pacific/Pago_Pago Pacific/Palau
Pacific/Pitcairn Pacific/Pohnpei Pacific/Ponape Pacific/Port_Moresby Pacific/Rarotonga
Pacific/Saipan Pacific/Samoa Pacific/Tahiti Pacific/Tarawa Pacific/Tongatapu Pacific/Truk
Pacific/Wake Pacific/Wallis Pacific/Yap Poland Portugal PRC PST8PDT ROC ROK Singapore
Turkey UCT Universal US/Alaska US/Aleutian US/Arizona US/Central US/East-Indiana
US/Eastern US/Hawaii US/Indiana-Starke US/Michigan US/Mountain US/Pacific US/Samoa UTC
W-SU WET Zulu`
